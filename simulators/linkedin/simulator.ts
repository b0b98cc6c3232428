import { seedComments, simCommentRoutes } from '../framework/comments.ts';
import { type Simulator, startSimulator } from '../framework/framework.ts';
import { linkedInErrors } from './errors.ts';
import { linkedInMetricsRoutes } from './metrics.ts';
import type { LinkedInSimulatorOptions } from './records.ts';
import { linkedInCommentRoutes } from './routes-comments.ts';
import { linkedInPostRoutes } from './routes-posts.ts';
import { linkedInReadRoutes } from './routes-reads.ts';
import { linkedInState } from './state.ts';

export { duplicatePostError, linkedInErrors } from './errors.ts';
export { fromLittleText, linkedInVersionActive } from './formats.ts';
export type { LinkedInSimulatorOptions, SimCommentContent, SimPostContent } from './records.ts';
/**
 * A local LinkedIn Posts and Comments API (versioned REST): `POST /rest/posts` (201, URN in
 * `x-restli-id`), PARTIAL_UPDATE and DELETE of posts, and comments under
 * `/rest/socialActions/{post urn}/comments`. It requires the `LinkedIn-Version` and
 * `X-Restli-Protocol-Version: 2.0.0` headers, answers with LinkedIn's error bodies
 * (`{ status, serviceErrorCode, code, message }`; the serviceErrorCode values are indicative),
 * refuses a member's duplicate post (422), and reads post commentary as "little text": escapes and
 * the hashtag template are decoded, and the text is cut at the first unescaped markup character,
 * as LinkedIn does. Records carry the text as members would see it.
 *
 * A token its OAuth half issued carries the scopes of its grant, and every data route checks them
 * as LinkedIn does, refusing with 403 `ACCESS_DENIED` "Not enough permissions to access: …":
 * writing as a member (posts, comments, uploads) needs `w_member_social`, as an organization
 * `w_organization_social`; reading a member's posts or comments needs `r_member_social` (granted to
 * approved apps only), an organization's `r_organization_social`; share statistics need
 * `rw_organization_admin`. Such a token also acts only as its own member or a page that member
 * administers. Tokens it did not issue (tests, pasted tokens) keep every right.
 *
 * A comment may carry one image (`content: [{ entity: { image: urn } }]`, Comments API): an image
 * of the comment's actor, uploaded through the Images API and `AVAILABLE`.
 *
 * Comments on comments (routes-comments.ts): created, listed and read under the comment's URN,
 * one level deep as on LinkedIn; a single comment is `GET /rest/socialActions/{urn}/comments/{id}`;
 * lists page with `start`/`count` (default 10, at most 100) and carry `paging.total`. Others'
 * comments come through the common hooks (`POST /_sim/comments`, `POST /_sim/comments/state`), and
 * a post whose text holds `sim:comments` gets three at once; a hidden or deleted comment is absent
 * from every read.
 */

export const startLinkedInSimulator = async (options: LinkedInSimulatorOptions = {}): Promise<Simulator> => {
  const s = await linkedInState(options);
  const { posts, files, oauth, requireScope, requireActor, requireReader, checkHeaders } = s;
  const { createComment, updateComment, listComments, getComment, deleteComment, commentStore } =
    linkedInCommentRoutes(s);
  const { createPost, updatePost, deletePost } = linkedInPostRoutes(s, (urn, text) =>
    seedComments(commentStore, urn, text, new Date()),
  );
  const { getPost, findPosts } = linkedInReadRoutes(s);
  const simulator = await startSimulator({
    name: 'LinkedIn',
    errors: linkedInErrors,
    port: options.port,
    holdMs: options.holdMs,
    onReset: () => {
      posts.clear();
      files.reset();
    },
    oauth,
    routes: [
      { method: 'POST', path: '/rest/posts', handler: createPost },
      { method: 'GET', path: '/rest/posts', handler: findPosts },
      { method: 'GET', path: '/rest/posts/:urn', handler: getPost },
      { method: 'GET', path: '/rest/socialActions/:urn/comments', handler: listComments },
      { method: 'GET', path: '/rest/socialActions/:urn/comments/:id', handler: getComment },
      { method: 'POST', path: '/rest/posts/:urn', handler: updatePost },
      { method: 'DELETE', path: '/rest/posts/:urn', handler: deletePost },
      { method: 'POST', path: '/rest/socialActions/:urn/comments', handler: createComment },
      { method: 'POST', path: '/rest/socialActions/:urn/comments/:id', handler: updateComment },
      { method: 'DELETE', path: '/rest/socialActions/:urn/comments/:id', handler: deleteComment },
      ...simCommentRoutes(commentStore),
      ...linkedInMetricsRoutes(posts, { requireScope, requireReader }),
      ...files.routes(checkHeaders, (ctx, owner) => requireActor(ctx, owner, 'assets.UPLOAD')),
      {
        method: 'GET',
        path: '/_sim/linkedin/posts',
        auth: false,
        handler: () => ({
          status: 200,
          body: {
            data: [...posts.values()].map((post) => ({
              urn: post.urn,
              author: post.author,
              text: post.text,
              deleted: post.deleted,
              content: post.content,
              comments: [...post.comments.values()].map((comment) => ({
                urn: comment.urn,
                actor: comment.actor,
                text: comment.text,
                deleted: comment.deleted,
                content: comment.content,
              })),
            })),
          },
        }),
      },
    ],
  });
  const stop = simulator.stop.bind(simulator);
  return Object.assign(simulator, {
    stop: async () => {
      await files.stop();
      await stop();
    },
  });
};
