import { randomBytes } from 'node:crypto';

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

export type IdPrefix = 'acct' | 'ws' | 'key' | 'ch' | 'tag' | 'post' | 'med' | 'wh' | 'evt' | 'dlv';

/** Prefixed, unguessable id (about 131 bits of randomness). */
export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBase62(22)}`;
