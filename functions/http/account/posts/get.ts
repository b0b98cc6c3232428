import { httpHandler } from '../../pipeline.ts';
import { getPostRoute, getPostUses } from '../../posts/get.ts';

/** GET /v1/account/workspaces/{workspaceId}/posts/{id}: as GET /v1/posts/{id}. */
export const handler = httpHandler({ auth: 'user', uses: getPostUses }, getPostRoute);
