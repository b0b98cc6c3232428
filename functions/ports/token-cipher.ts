/** Encrypts channel access tokens at rest (KMS on AWS, a local key file locally). */
export interface TokenCipher {
  encrypt(plaintext: string, context: { channelId: string }): Promise<string>;
  decrypt(ciphertext: string, context: { channelId: string }): Promise<string>;
}
