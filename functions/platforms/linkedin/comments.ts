import {
  type CommentInput,
  type CommentsInput,
  type CommentsPage,
  type DeleteReplyInput,
  type LookupReplyInput,
  type MediaForNetwork,
  type NetworkCredentials,
  NetworkError,
  type RemoteComment,
  type ReplyInput,
} from '../../ports/network-client.ts';
import type { HttpAnswer, HttpCall } from '../network-http.ts';
import { stringField } from '../network-http.ts';

/**
 * A page's conversation under its posts through LinkedIn's Comments API (Community Management,
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/comments-api):
 * - `GET /rest/socialActions/{post urn}/comments?start=&count=` lists the post's first-level
 *   comments (newest first, `paging.total`); each comment's answers ("nested comments") are listed
 *   under its own URN, `GET /rest/socialActions/{comment urn}/comments`. LinkedIn nests one level.
 * - One comment: `GET /rest/socialActions/{post urn}/comments/{comment id}` (404 when LinkedIn does
 *   not show it under that post: deleted, hidden, or another post's).
 * - An answer: `POST /rest/socialActions/{comment urn}/comments` with `parentComment` naming that
 *   comment and `object` the post's activity. Answering a nested comment answers its parent (the
 *   thread's first-level comment), as LinkedIn threads it; the reply's `parentRemoteId` says so.
 * - Deleting: `DELETE /rest/socialActions/{post urn}/comments/{id}?actor=<page>`; 404 is done.
 * Reading needs `r_organization_social`, writing `w_organization_social`: a token without one is
 * refused with 403 "Not enough permissions to access: …", a reconnect naming the scope.
 *
 * Authors: LinkedIn gives the actor's URN only (`urn:li:person:…`, `urn:li:organization:…`);
 * names need the People API, which a page app is not granted. So `name` is null and `handle` is
 * the actor URN (also in `meta.actor`). Likes are `likesSummary.totalLikes`. LinkedIn takes no
 * client key: a lost reply is found among the thread's answers by actor, text and time.
 */

type Call = (
  credentials: NetworkCredentials,
  request: { method: HttpCall['method']; path: string; json?: unknown; headers?: Record<string, string> },
  alsoFine?: number[],
) => Promise<HttpAnswer>;

export interface LinkedInCommentsDeps {
  call: Call;
  /** The page's URN (`urn:li:organization:…`) for the channel's credentials. */
  authorOf(credentials: NetworkCredentials): string;
  /** Uploads one image as `owner`, AVAILABLE, and answers its URN (media-upload.ts). */
  commentImage(media: MediaForNetwork[], credentials: NetworkCredentials, owner: string): Promise<string>;
}

/** `urn:li:comment:(<post or activity urn>,<comment id>)` split, or null. */
export const parseCommentUrn = (urn: string) => {
  const match = /^urn:li:comment:\((urn:li:[^,]+),(\d+)\)$/.exec(urn);
  return match ? { postUrn: match[1] as string, commentId: match[2] as string } : null;
};

export const postUrl = (urn: string) => `https://www.linkedin.com/feed/update/${urn}/`;

/** LinkedIn's largest `count`. */
const MAX_COUNT = 100;
/** How many pages of a thread's answers a lookup reads before it gives up (100 each). */
const LOOKUP_PAGES = 10;

const READ_SCOPE = 'r_organization_social';
const WRITE_SCOPE = 'w_organization_social';

interface ListPage {
  elements: unknown[];
  more: boolean;
}

/** Whether a list answer has more after it: `paging.total`, else a `next` link, else a full page. */
const listPageOf = (body: unknown, start: number, count: number): ListPage => {
  const raw = (body as { elements?: unknown } | null)?.elements;
  const elements = Array.isArray(raw) ? raw : [];
  const paging = (body as { paging?: { total?: unknown; links?: unknown } } | null)?.paging;
  let more: boolean;
  if (typeof paging?.total === 'number') more = start + elements.length < paging.total;
  else if (Array.isArray(paging?.links))
    more = paging.links.some((link) => stringField(link, 'rel') === 'next');
  else more = elements.length >= count;
  return { elements, more: more && elements.length > 0 };
};

/** Whether a comment has answers to fetch: `commentsSummary` when LinkedIn gives it, else look. */
const hasAnswers = (element: unknown): boolean => {
  const summary = (element as { commentsSummary?: Record<string, unknown> } | null)?.commentsSummary;
  if (!summary) return true;
  const counts = [summary.aggregatedTotalComments, summary.totalFirstLevelComments].filter(
    (value): value is number => typeof value === 'number',
  );
  return counts.length === 0 || counts.some((value) => value > 0);
};

/**
 * The conversation cursor: `<i>` resumes at the post's i-th first-level comment; `<i>.<j>.<id>`
 * resumes after the i-th comment (id `<id>`) itself and its first j answers (a page ended inside
 * its thread). When a newer comment has moved comment `<id>` from place i, the thread is read
 * again from its start rather than skipping answers of another comment.
 */
const parseCursor = (
  cursor: string | null,
): { top: number; resume: { answers: number; id: string } | null } => {
  if (cursor === null) return { top: 0, resume: null };
  const match = /^(\d{1,9})(?:\.(\d{1,9})\.(\d{1,30}))?$/.exec(cursor);
  if (!match) throw new NetworkError('permanent', `Not a LinkedIn comments cursor: ${cursor}`);
  return {
    top: Number(match[1]),
    resume: match[2] === undefined ? null : { answers: Number(match[2]), id: match[3] as string },
  };
};

export class LinkedInComments {
  constructor(private readonly deps: LinkedInCommentsDeps) {}

  /**
   * One page of the conversation, flat: first-level comments (`limit` of them at most, counting
   * their answers) each followed by its answers. LinkedIn cannot filter by time: `since` is
   * applied here, and every thread is still read (an old comment may have new answers).
   */
  async comments(input: CommentsInput): Promise<CommentsPage> {
    const { top, resume } = parseCursor(input.cursor);
    const limit = Math.max(1, Math.min(input.limit, MAX_COUNT));
    const postUrn = input.block.remoteId;
    const since = input.since?.getTime() ?? null;
    const out: RemoteComment[] = [];
    const emit = (element: unknown, parent: string) => {
      const comment = this.toRemote(element, postUrn, parent);
      if (comment && (since === null || Date.parse(comment.createdAt) >= since)) out.push(comment);
    };
    const firstLevel = await this.list(input.credentials, postUrn, top, limit);
    let taken = 0;
    for (const [i, element] of firstLevel.elements.entries()) {
      const index = top + i;
      // A nested comment LinkedIn might list here is read under its parent.
      if (stringField(element, 'parentComment')) continue;
      const urn = this.urnOf(element);
      const id = urn ? parseCommentUrn(urn)?.commentId : undefined;
      const resuming = i === 0 && resume !== null && resume.id === id;
      if (!resuming) {
        if (taken >= limit) return { comments: out, nextCursor: `${index}` };
        emit(element, postUrn);
        taken += 1;
      }
      if (!urn || !id || !hasAnswers(element)) continue;
      let start = resuming ? (resume?.answers ?? 0) : 0;
      for (;;) {
        if (taken >= limit) return { comments: out, nextCursor: `${index}.${start}.${id}` };
        const page = await this.list(input.credentials, urn, start, limit - taken);
        for (const answer of page.elements) emit(answer, urn);
        taken += page.elements.length;
        start += page.elements.length;
        if (!page.more) break;
      }
    }
    return {
      comments: out,
      nextCursor: firstLevel.more ? `${top + firstLevel.elements.length}` : null,
    };
  }

  /** The comment `remoteId` when LinkedIn shows it under this post; null otherwise. */
  async findComment(input: CommentInput): Promise<RemoteComment | null> {
    const parsed = parseCommentUrn(input.remoteId);
    if (!parsed) return null;
    const postUrn = input.block.remoteId;
    const answer = await this.read(
      input.credentials,
      `/rest/socialActions/${encodeURIComponent(postUrn)}/comments/${parsed.commentId}`,
      [404],
    );
    if (answer.status === 404) return null;
    const comment = this.toRemote(answer.body, postUrn, postUrn);
    // The id alone is not proof: the answer must be this very comment (same activity).
    return comment?.remoteId === input.remoteId ? comment : null;
  }

  async reply(input: ReplyInput): Promise<RemoteComment> {
    const actor = this.deps.authorOf(input.credentials);
    const thread = this.threadOf(input.comment);
    const parsed = parseCommentUrn(thread);
    if (!parsed) {
      throw new NetworkError('permanent', `LinkedIn comments are answered by their URN, not ${thread}`);
    }
    const image =
      input.media.length > 0
        ? await this.write(() => this.deps.commentImage(input.media, input.credentials, actor))
        : undefined;
    const answer = await this.write(() =>
      this.deps.call(input.credentials, {
        method: 'POST',
        path: `/rest/socialActions/${encodeURIComponent(thread)}/comments`,
        json: {
          actor,
          object: parsed.postUrn,
          message: { text: input.content },
          parentComment: thread,
          ...(image ? { content: [{ entity: { image } }] } : {}),
        },
      }),
    );
    const postUrn = input.block.remoteId;
    const fromBody = this.toRemote(answer.body, postUrn, thread);
    if (fromBody) return fromBody;
    const id = answer.headers['x-restli-id'];
    if (id && /^\d+$/.test(id)) {
      const urn = `urn:li:comment:(${parsed.postUrn},${id})`;
      return {
        remoteId: urn,
        parentRemoteId: thread,
        author: { name: null, handle: actor },
        text: input.content,
        createdAt: new Date().toISOString(),
        likeCount: null,
        url: this.urlOf(postUrn, urn, thread),
        meta: { urn, postUrn, commentId: id, actor, threadUrn: thread },
      };
    }
    throw new NetworkError('transient', 'LinkedIn accepted the reply but its answer had no comment URN', {
      status: answer.status,
      outcomeUnknown: true,
    });
  }

  /** The page's answer in the comment's thread with this text, made since `since`; null when none. */
  async lookupReply(input: LookupReplyInput): Promise<RemoteComment | null> {
    const actor = this.deps.authorOf(input.credentials);
    const thread = this.threadOf(input.comment);
    const since = input.since.getTime();
    let start = 0;
    for (let pages = 0; pages < LOOKUP_PAGES; pages += 1) {
      const page = await this.list(input.credentials, thread, start, MAX_COUNT);
      for (const element of page.elements) {
        const text = (element as { message?: { text?: unknown } }).message?.text;
        const created = (element as { created?: { time?: unknown } }).created?.time;
        if (stringField(element, 'actor') !== actor || text !== input.content) continue;
        if (typeof created === 'number' && created < since) continue;
        const found = this.toRemote(element, input.block.remoteId, thread);
        if (found) return found;
      }
      if (!page.more) break;
      start += page.elements.length;
    }
    return null;
  }

  async deleteReply(input: DeleteReplyInput): Promise<void> {
    const parsed = parseCommentUrn(input.reply.remoteId);
    const commentId = input.reply.meta.commentId ?? parsed?.commentId;
    if (!commentId) {
      throw new NetworkError('permanent', `Not a LinkedIn comment URN: ${input.reply.remoteId}`);
    }
    const actor = encodeURIComponent(this.deps.authorOf(input.credentials));
    // Already gone counts as deleted: a retried delete after a lost answer must not fail.
    await this.write(() =>
      this.deps.call(
        input.credentials,
        {
          method: 'DELETE',
          path: `/rest/socialActions/${encodeURIComponent(input.block.remoteId)}/comments/${commentId}?actor=${actor}`,
          headers: { 'x-restli-method': 'DELETE' },
        },
        [404],
      ),
    );
  }

  /** The first-level comment whose thread an answer to `comment` goes in (LinkedIn nests one level). */
  private threadOf(comment: Pick<RemoteComment, 'remoteId' | 'meta'>): string {
    return comment.meta.threadUrn ?? comment.remoteId;
  }

  private urnOf(element: unknown): string | undefined {
    return stringField(element, 'commentUrn') ?? stringField(element, '$URN');
  }

  private urlOf(postUrn: string, urn: string, thread: string | null): string {
    return thread
      ? `${postUrl(postUrn)}?commentUrn=${encodeURIComponent(thread)}&replyUrn=${encodeURIComponent(urn)}`
      : `${postUrl(postUrn)}?commentUrn=${encodeURIComponent(urn)}`;
  }

  /** A LinkedIn comment element as a RemoteComment; `parent` when it names none (a first-level comment). */
  private toRemote(element: unknown, postUrn: string, parent: string): RemoteComment | null {
    const urn = this.urnOf(element);
    const parsed = urn ? parseCommentUrn(urn) : null;
    if (!urn || !parsed) return null;
    const actor = stringField(element, 'actor') ?? null;
    const parentComment = stringField(element, 'parentComment') ?? (parent === postUrn ? null : parent);
    const text = (element as { message?: { text?: unknown } }).message?.text;
    const created = (element as { created?: { time?: unknown } }).created?.time;
    const likes = (element as { likesSummary?: { totalLikes?: unknown } }).likesSummary?.totalLikes;
    return {
      remoteId: urn,
      parentRemoteId: parentComment ?? postUrn,
      author: { name: null, handle: actor },
      text: typeof text === 'string' ? text : '',
      createdAt: new Date(typeof created === 'number' ? created : Date.now()).toISOString(),
      likeCount: typeof likes === 'number' ? likes : null,
      url: this.urlOf(postUrn, urn, parentComment),
      meta: {
        urn,
        postUrn,
        commentId: parsed.commentId,
        ...(actor ? { actor } : {}),
        ...(parentComment ? { threadUrn: parentComment } : {}),
      },
    };
  }

  private list(credentials: NetworkCredentials, urn: string, start: number, count: number) {
    const size = Math.max(1, Math.min(count, MAX_COUNT));
    return this.read(
      credentials,
      `/rest/socialActions/${encodeURIComponent(urn)}/comments?start=${start}&count=${size}`,
    ).then((answer) => listPageOf(answer.body, start, size));
  }

  private read(credentials: NetworkCredentials, path: string, alsoFine: number[] = []) {
    return this.scoped(READ_SCOPE, 'read the page’s comments', () =>
      this.deps.call(credentials, { method: 'GET', path }, alsoFine),
    );
  }

  private write<T>(run: () => Promise<T>): Promise<T> {
    return this.scoped(WRITE_SCOPE, 'answer and delete comments as the page', run);
  }

  /**
   * LinkedIn refuses a token without the scope with 403 `ACCESS_DENIED` "Not enough permissions to
   * access: …": the channel must be reconnected to grant it.
   */
  private async scoped<T>(scope: string, what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (
        error instanceof NetworkError &&
        error.details.status === 403 &&
        /^Not enough permissions to access/.test(error.message)
      ) {
        throw new NetworkError(
          'reconnect',
          `LinkedIn needs the ${scope} permission to ${what} (${error.message}); reconnecting the channel grants it.`,
          { status: 403, missingPermission: true },
        );
      }
      throw error;
    }
  }
}
