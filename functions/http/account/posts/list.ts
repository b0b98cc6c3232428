import { httpHandler } from '../../pipeline.ts';
import { listPostsRoute, listPostsUses } from '../../posts/list.ts';

/** GET /v1/account/workspaces/{workspaceId}/posts: as GET /v1/posts (the workspace's live posts). */
export const handler = httpHandler({ auth: 'user', uses: listPostsUses }, listPostsRoute);
