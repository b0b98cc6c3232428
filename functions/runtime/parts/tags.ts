import { dynamoTagStore } from '../../adapters/aws/dynamo/tags.ts';
import type { TagStore } from '../../ports/tags.ts';
import { part } from '../compose.ts';

/** The workspaces' tags, in the table. */
export const tags = part({
  name: 'tags',
  keys: ['tags'],
  build: ({ table }): { tags: TagStore } => ({ tags: dynamoTagStore(table) }),
});
