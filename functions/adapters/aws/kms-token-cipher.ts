import { DecryptCommand, EncryptCommand, type KMSClient } from '@aws-sdk/client-kms';
import type { TokenCipher } from '../../ports/token-cipher.ts';

/** Channel tokens encrypted with a KMS key, bound to their channel by the encryption context. */
export class KmsTokenCipher implements TokenCipher {
  constructor(
    private readonly client: KMSClient,
    private readonly keyId: string,
  ) {}

  async encrypt(plaintext: string, context: { channelId: string }): Promise<string> {
    const out = await this.client.send(
      new EncryptCommand({
        KeyId: this.keyId,
        Plaintext: Buffer.from(plaintext, 'utf8'),
        EncryptionContext: { channelId: context.channelId },
      }),
    );
    if (!out.CiphertextBlob) throw new Error('KMS returned no ciphertext');
    return `kms:${Buffer.from(out.CiphertextBlob).toString('base64')}`;
  }

  async decrypt(ciphertext: string, context: { channelId: string }): Promise<string> {
    if (!ciphertext.startsWith('kms:')) throw new Error('Token was not encrypted with KMS');
    const out = await this.client.send(
      new DecryptCommand({
        KeyId: this.keyId,
        CiphertextBlob: Buffer.from(ciphertext.slice(4), 'base64'),
        EncryptionContext: { channelId: context.channelId },
      }),
    );
    if (!out.Plaintext) throw new Error('KMS returned no plaintext');
    return Buffer.from(out.Plaintext).toString('utf8');
  }
}
