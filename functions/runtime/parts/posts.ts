import { DynamoPostStore } from '../../adapters/aws/dynamo/posts.ts';
import type { OverduePosts } from '../../ports/overdue-posts.ts';
import type { PostStore } from '../../ports/posts.ts';
import { part } from '../compose.ts';

/** Posts in the table, and their due index (for the post sweep). */
export const posts = part({
  name: 'posts',
  keys: ['posts', 'overduePosts'],
  build: ({ table }): { posts: PostStore; overduePosts: OverduePosts } => {
    const store = new DynamoPostStore(table);
    return { posts: store, overduePosts: store };
  },
});
