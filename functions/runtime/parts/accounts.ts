import { dynamoAccountStore } from '../../adapters/aws/dynamo/accounts.ts';
import type { AccountStore } from '../../ports/accounts.ts';
import { part } from '../compose.ts';

/** Accounts and their plans, in the table. */
export const accounts = part({
  name: 'accounts',
  keys: ['accounts'],
  build: ({ table }): { accounts: AccountStore } => ({ accounts: dynamoAccountStore(table) }),
});
