import { tagView } from '../../core/tags/tag-view.ts';
import { createTag, createTagBody } from '../../core/tags/tags.ts';
import { tags } from '../../runtime/parts/tags.ts';
import { httpHandler } from '../pipeline.ts';

/** POST /v1/tags: a new label for posts (never published). */
export const handler = httpHandler({ body: createTagBody, uses: [tags] }, async ({ deps, auth, body }) => ({
  status: 201,
  body: tagView(await createTag(deps, { workspaceId: auth.workspaceId, ...body })),
}));
