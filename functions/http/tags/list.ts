import { tagView } from '../../core/tags/tag-view.ts';
import { tags } from '../../runtime/parts/tags.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/tags: the workspace's tags, by name. */
export const handler = httpHandler({ uses: [tags] }, async ({ deps, auth }) => ({
  status: 200,
  body: { data: (await deps.tags.listTags(auth.workspaceId)).map(tagView) },
}));
