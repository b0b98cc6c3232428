import { dynamoUserStore } from '../../adapters/aws/dynamo/users.ts';
import type { UserStore } from '../../ports/users.ts';
import { part } from '../compose.ts';

/** The people who sign in to the dashboard, each with its account, in the table. */
export const users = part({
  name: 'users',
  keys: ['users'],
  build: ({ table }): { users: UserStore } => ({ users: dynamoUserStore(table) }),
});
