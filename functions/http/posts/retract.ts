import { retractPost } from '../../core/publishing/revise-retract.ts';
import { httpHandler } from '../../shared/http.ts';

/** POST /v1/posts/{id}/retract: removes the post from the networks that allow it. */
export const handler = httpHandler({}, async ({ deps, auth, params }) => ({
  status: 200,
  body: await retractPost(deps, auth, params.id as string),
}));
