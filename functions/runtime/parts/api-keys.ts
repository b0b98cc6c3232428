import { dynamoKeyStore } from '../../adapters/aws/dynamo/api-keys.ts';
import type { KeyStore } from '../../ports/api-keys.ts';
import { part } from '../compose.ts';

/** Creating API keys (a request's key is found by the base's rate limiter). */
export const apiKeys = part({
  name: 'apiKeys',
  keys: ['apiKeys'],
  build: ({ table }): { apiKeys: KeyStore } => ({ apiKeys: dynamoKeyStore(table) }),
});
