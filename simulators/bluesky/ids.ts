import { createHash } from 'node:crypto';

/** atproto's identifiers as the PDS makes them: CIDs, TIDs, DIDs of handles, record keys. */
export const S32 = 'abcdefghijklmnopqrstuvwxyz234567';
export const TID_CHARS = '234567abcdefghijklmnopqrstuvwxyz';

export const base32 = (bytes: Buffer) => {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += S32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += S32[(value << (5 - bits)) & 31];
  return out;
};

/** A CID-shaped string (CIDv1, dag-cbor, sha-256, base32) from the record's JSON. */
export const cidOf = (value: unknown) =>
  `bafyrei${base32(createHash('sha256').update(JSON.stringify(value)).digest()).slice(0, 52)}`;

/** The record-key syntax (atproto spec): 1-512 of `A-Za-z0-9 . - _ : ~`, not `.` or `..`. */
export const isValidRecordKey = (rkey: string) =>
  /^[A-Za-z0-9._:~-]{1,512}$/.test(rkey) && rkey !== '.' && rkey !== '..';

/** The DID a handle resolves to in the simulator. */
export const simDidForHandle = (handle: string) =>
  `did:plc:${base32(createHash('sha256').update(handle.toLowerCase()).digest()).slice(0, 24)}`;

export const didOf = (repo: string) => (repo.startsWith('did:') ? repo : simDidForHandle(repo));

/** A TID: 13 base32-sortable characters, the top bit zero. */
export const isSimTid = (rkey: string) =>
  /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/.test(rkey);

let tidClock = 0;
export const nextTid = () => {
  const micros = Math.max(Date.now() * 1000, tidClock + 1);
  tidClock = micros;
  let value = (BigInt(micros) << 10n) | 7n;
  let key = '';
  for (let i = 0; i < 13; i++) {
    key = (TID_CHARS[Number(value & 31n)] as string) + key;
    value >>= 5n;
  }
  return key;
};
