import { wantsSimComments } from '../../functions/ports/network-client.ts';
import { objectOf } from './http.ts';
import type { SimRoute } from './types.ts';

/**
 * The comment hooks every simulator of a network whose comments Herald reads mounts, so tests and
 * the docs drive comments the same way on each:
 * - `POST /_sim/comments` `{ parentId, text, author?: { name?, handle? }, createdAt? }` → 201
 *   `{ id }`: someone else comments on a post or answers a comment (`parentId`: the network's id of
 *   it, as Herald's client sees it);
 * - `POST /_sim/comments/state` `{ id, state: 'visible' | 'hidden' | 'deleted' }` → 204 (404 when
 *   unknown): the author deleted it, or the account's owner (or the network) hid it;
 * - a post published with `sim:comments` in its text gets `SEEDED_COMMENTS` at once (two on the
 *   post, one answering the first), so that comments can be tried by hand.
 * The network module keeps the comments in its own state, in its own shapes: `add` returns the new
 * comment's id, or null when `parentId` names nothing it has (404).
 */
export interface SimCommentStore {
  add(input: SimCommentInput): string | null;
  setState(id: string, state: SimCommentState): boolean;
}

export type SimCommentState = 'visible' | 'hidden' | 'deleted';

export interface SimCommentInput {
  parentId: string;
  text: string;
  author: { name: string; handle: string };
  createdAt: Date;
}

/** Who comments in the simulators unless a test names someone. */
export const DEFAULT_COMMENTER = { name: 'Ada Reader', handle: 'ada_reader' };

/** The comments a `sim:comments` post gets: two on the post, the third answering the first. */
export const SEEDED_COMMENTS: ReadonlyArray<{
  text: string;
  author: { name: string; handle: string };
  answers: 'post' | 0;
}> = [
  { text: 'Congratulations on the launch!', author: DEFAULT_COMMENTER, answers: 'post' },
  {
    text: 'Where can I read more about this?',
    author: { name: 'Grace Follower', handle: 'grace_f' },
    answers: 'post',
  },
  { text: 'Agreed, great news.', author: { name: 'Linus Lurker', handle: 'linus_l' }, answers: 0 },
];

/** Adds the seeded comments under a post just stored, when its text asks for them. */
export const seedComments = (store: SimCommentStore, postId: string, text: string, at: Date): void => {
  if (!wantsSimComments(text)) return;
  const ids: string[] = [];
  for (const seed of SEEDED_COMMENTS) {
    const parentId = seed.answers === 'post' ? postId : (ids[seed.answers] as string);
    const id = store.add({ parentId, text: seed.text, author: seed.author, createdAt: at });
    if (id) ids.push(id);
  }
};

const STATES: readonly SimCommentState[] = ['visible', 'hidden', 'deleted'];

/** The two `/_sim/comments` routes over a network's store. */
export const simCommentRoutes = (store: SimCommentStore): SimRoute[] => [
  {
    method: 'POST',
    path: '/_sim/comments',
    auth: false,
    handler: (ctx) => {
      const body = objectOf(ctx.body) ?? {};
      const author = objectOf(body.author) ?? {};
      const createdAt = typeof body.createdAt === 'string' ? new Date(body.createdAt) : new Date();
      if (
        typeof body.parentId !== 'string' ||
        typeof body.text !== 'string' ||
        body.text.length === 0 ||
        Number.isNaN(createdAt.getTime())
      ) {
        return {
          status: 400,
          body: {
            message:
              'Send { parentId: string, text: string, author?: { name?, handle? }, createdAt?: ISO 8601 }',
          },
        };
      }
      const id = store.add({
        parentId: body.parentId,
        text: body.text,
        author: {
          name: typeof author.name === 'string' ? author.name : DEFAULT_COMMENTER.name,
          handle: typeof author.handle === 'string' ? author.handle : DEFAULT_COMMENTER.handle,
        },
        createdAt,
      });
      return id
        ? { status: 201, body: { id } }
        : { status: 404, body: { message: `Nothing has the id ${body.parentId}` } };
    },
  },
  {
    method: 'POST',
    path: '/_sim/comments/state',
    auth: false,
    handler: (ctx) => {
      const { id, state } = objectOf(ctx.body) ?? {};
      if (typeof id !== 'string' || !STATES.includes(state as SimCommentState)) {
        return {
          status: 400,
          body: { message: "Send { id: string, state: 'visible' | 'hidden' | 'deleted' }" },
        };
      }
      return store.setState(id, state as SimCommentState)
        ? { status: 204 }
        : { status: 404, body: { message: `No comment has the id ${id}` } };
    },
  },
];
