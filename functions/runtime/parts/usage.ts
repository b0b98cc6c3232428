import { DynamoUsageStore } from '../../adapters/aws/dynamo/usage.ts';
import type { UsageStore } from '../../ports/usage.ts';
import { part } from '../compose.ts';

/** The accounts' monthly usage counters, in the table. */
export const usage = part({
  name: 'usage',
  keys: ['usage'],
  build: ({ table }): { usage: UsageStore } => ({ usage: new DynamoUsageStore(table) }),
});
