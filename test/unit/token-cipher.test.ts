import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { KmsTokenCipher } from '../../functions/adapters/aws/kms-token-cipher.ts';
import { FileTokenCipher, loadOrCreateKey } from '../../functions/adapters/local/file-token-cipher.ts';

describe('local token cipher', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'herald-key-')), 'token.key');

  it('creates a private key file once and reuses it', () => {
    const key = loadOrCreateKey(file);
    expect(key).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadOrCreateKey(file).equals(key)).toBe(true);
  });

  it('round-trips, hides the token and binds it to its channel', async () => {
    const cipher = new FileTokenCipher(loadOrCreateKey(file));
    const sealed = await cipher.encrypt('secret-token-123', { channelId: 'ch_a' });
    expect(sealed).not.toContain('secret-token-123');
    expect(await cipher.encrypt('secret-token-123', { channelId: 'ch_a' })).not.toBe(sealed);
    expect(await cipher.decrypt(sealed, { channelId: 'ch_a' })).toBe('secret-token-123');
    await expect(cipher.decrypt(sealed, { channelId: 'ch_b' })).rejects.toThrow();
    expect(readFileSync(file, 'utf8')).not.toContain('secret-token');
  });
});

describe('KMS token cipher', () => {
  it('sends the channel as encryption context both ways', async () => {
    const kms = mockClient(KMSClient);
    kms.on(EncryptCommand).resolves({ CiphertextBlob: Buffer.from('sealed') });
    kms.on(DecryptCommand).resolves({ Plaintext: Buffer.from('tok') });
    const cipher = new KmsTokenCipher(new KMSClient({ region: 'us-east-1' }), 'alias/herald-tokens');
    const sealed = await cipher.encrypt('tok', { channelId: 'ch_1' });
    expect(sealed).toBe(`kms:${Buffer.from('sealed').toString('base64')}`);
    expect(kms.commandCalls(EncryptCommand)[0]?.args[0].input).toMatchObject({
      KeyId: 'alias/herald-tokens',
      EncryptionContext: { channelId: 'ch_1' },
    });
    expect(await cipher.decrypt(sealed, { channelId: 'ch_1' })).toBe('tok');
    expect(kms.commandCalls(DecryptCommand)[0]?.args[0].input.EncryptionContext).toEqual({
      channelId: 'ch_1',
    });
    kms.restore();
  });
});
