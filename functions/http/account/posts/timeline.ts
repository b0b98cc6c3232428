import { httpHandler } from '../../pipeline.ts';
import { timelineRoute, timelineUses } from '../../posts/timeline.ts';

/** GET /v1/account/workspaces/{workspaceId}/posts/{id}/timeline: as GET /v1/posts/{id}/timeline. */
export const handler = httpHandler({ auth: 'user', uses: timelineUses }, timelineRoute);
