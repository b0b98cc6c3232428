import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { TokenCipher } from '../../ports/token-cipher.ts';

/** Reads the local 256-bit key, creating it (mode 0600) on first use. */
export const loadOrCreateKey = (file: string): Buffer => {
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  if (key.length !== 32) throw new Error('The local token key file must hold 32 bytes in hex');
  return key;
};

/**
 * Local stand-in for KMS: AES-256-GCM with a key file, the channel id as additional
 * authenticated data (as KMS's encryption context), so a ciphertext moved to another channel fails.
 */
export class FileTokenCipher implements TokenCipher {
  constructor(private readonly key: Buffer) {}

  async encrypt(plaintext: string, context: { channelId: string }): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context.channelId, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `local:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  async decrypt(ciphertext: string, context: { channelId: string }): Promise<string> {
    if (!ciphertext.startsWith('local:')) throw new Error('Token was not encrypted with the local key');
    const raw = Buffer.from(ciphertext.slice(6), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(context.channelId, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
