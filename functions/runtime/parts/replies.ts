import { dynamoReplyStore } from '../../adapters/aws/dynamo/replies.ts';
import type { ReplyStore } from '../../ports/comments.ts';
import { part } from '../compose.ts';

/** The replies Herald sent to comments, and the comments already announced, in the table. */
export const replies = part({
  name: 'replies',
  keys: ['replies'],
  build: ({ table }): { replies: ReplyStore } => ({ replies: dynamoReplyStore(table) }),
});
