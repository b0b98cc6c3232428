import { tagView } from '../../core/tags/tag-view.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/tags: the workspace's tags, by name. */
export const handler = httpHandler({}, async ({ deps, auth }) => ({
  status: 200,
  body: { data: (await deps.accounts.listTags(auth.workspaceId)).map(tagView) },
}));
