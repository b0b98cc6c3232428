import { dynamoPostReferences } from '../../adapters/aws/dynamo/post-references.ts';
import { DynamoPostStore } from '../../adapters/aws/dynamo/posts.ts';
import type { OverduePosts } from '../../ports/overdue-posts.ts';
import type { PostReferenceStore } from '../../ports/post-references.ts';
import type { PostStore, PostTimelines } from '../../ports/posts.ts';
import { part } from '../compose.ts';

export interface PostsPartDeps {
  posts: PostStore;
  overduePosts: OverduePosts;
  /** The account, channels and tags a post names, read in one request when a post is saved. */
  postReferences: PostReferenceStore;
  /** A post with its blocks' timelines (GET /posts/{id}/timeline). */
  postTimelines: PostTimelines;
}

/** Posts in the table, their due index (for the post sweep), and what a saved post refers to. */
export const posts = part({
  name: 'posts',
  keys: ['posts', 'overduePosts', 'postReferences', 'postTimelines'],
  build: ({ table }): PostsPartDeps => {
    const store = new DynamoPostStore(table);
    return {
      posts: store,
      overduePosts: store,
      postReferences: dynamoPostReferences(table),
      postTimelines: store,
    };
  },
});
