import { createHash, randomBytes } from 'node:crypto';
import * as z from 'zod';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 text of `length` characters, drawn without modulo bias. */
export const randomBase62 = (length: number): string => {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
};

export type IdPrefix = 'acct' | 'ws' | 'key' | 'ch' | 'tag' | 'post' | 'med' | 'wh' | 'evt' | 'dlv' | 'rpl';

/** Prefixed, unguessable id (about 131 bits of randomness). */
export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBase62(22)}`;

/** Prefixed id derived from `seed` (SHA-256 in base62, same shape as `newId`): the same seed always gives the same id. */
export const derivedId = (prefix: IdPrefix, seed: string): string => {
  let n = BigInt(`0x${createHash('sha256').update(seed).digest('hex')}`);
  let out = '';
  while (out.length < 22) {
    out += ALPHABET[Number(n % 62n)];
    n /= 62n;
  }
  return `${prefix}_${out}`;
};

/**
 * The body of an id as clients may send it: ours are 22 base62 characters; up to 64 are accepted
 * so ids made elsewhere (seeds, imports) still read. The cap keeps every key built from an id far
 * below DynamoDB's limits (2,048 bytes per partition key, 1,024 per sort key).
 */
export const ID_BODY = '[0-9A-Za-z]{1,64}';

const patterns = new Map<IdPrefix, RegExp>();
/** `^post_[0-9A-Za-z]{1,64}$` and the like. */
export const idPattern = (prefix: IdPrefix): RegExp => {
  let pattern = patterns.get(prefix);
  if (!pattern) {
    pattern = new RegExp(`^${prefix}_${ID_BODY}$`);
    patterns.set(prefix, pattern);
  }
  return pattern;
};

/** True when `value` has the shape of an id with this prefix (it may still not exist). */
export const isId = (prefix: IdPrefix, value: string): boolean => idPattern(prefix).test(value);

/** A zod string that must have the shape of an id with this prefix. */
export const idSchema = (prefix: IdPrefix) =>
  z.string().regex(idPattern(prefix), `Must be an id of the form ${prefix}_… (letters and digits).`);
