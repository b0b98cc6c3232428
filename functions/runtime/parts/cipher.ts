import { KMSClient } from '@aws-sdk/client-kms';
import { KmsTokenCipher } from '../../adapters/aws/kms-token-cipher.ts';
import { FileTokenCipher, loadOrCreateKey } from '../../adapters/local/file-token-cipher.ts';
import type { TokenCipher } from '../../ports/token-cipher.ts';
import { env } from '../../shared/env.ts';
import { part } from '../compose.ts';

/** Encryption of stored secrets: channels' tokens, webhook signing secrets (KMS on AWS, a key file locally). */
export const cipher = part({
  name: 'cipher',
  keys: ['tokenCipher'],
  build: (_deps, { decorated, decorators, lazy }): { tokenCipher: () => TokenCipher } => ({
    tokenCipher: lazy(() => {
      const made =
        env.runtime === 'aws'
          ? new KmsTokenCipher(decorated(new KMSClient({})), env.tokenKmsKeyId)
          : new FileTokenCipher(loadOrCreateKey(env.localTokenKeyFile));
      return decorators.tokenCipher?.(made) ?? made;
    }),
  }),
});
