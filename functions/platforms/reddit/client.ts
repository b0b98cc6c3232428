import { createHash } from 'node:crypto';
import {
  type CommentInput,
  type CommentsInput,
  type CommentsPage,
  type DeleteBlockInput,
  type DeleteReplyInput,
  type EditBlockInput,
  type LookupBlockInput,
  type LookupReplyInput,
  type MetricsInput,
  type MetricsReading,
  type NetworkClient,
  type NetworkCredentials,
  NetworkError,
  type PublishBlockInput,
  type RemoteBlock,
  type RemoteComment,
  type ReplyInput,
} from '../../ports/network-client.ts';
import type { OutboundPolicy } from '../../ports/outbound.ts';
import { STRICT_OUTBOUND } from '../guarded-http.ts';
import { receiveFirstWebSocketMessage, type WebSocketFirst } from '../guarded-websocket.ts';
import {
  baseUrlOf,
  DEFAULT_TIMEOUT_MS,
  GUARD_REFUSALS,
  stringField,
  TransportError,
} from '../network-http.ts';
import { RedditComments } from './comments.ts';
import { type RedditConnection, redditCall, redditUserAgentOf } from './http.ts';
import { blankPoster, storedFile, uploadRedditMedia } from './media-upload.ts';
import { readRedditMetrics } from './metrics.ts';

/**
 * Reddit's API (oauth.reddit.com, bearer token, a descriptive User-Agent). The first block is a
 * submission to the `subreddit` option with the channel's title: a text post (`kind=self`), a link
 * post with the `link` option (`kind=link`, `resubmit=true`: Herald's lookup, not Reddit's
 * ALREADY_SUB, guards against sending one twice), with
 * one file an image or video post (`kind=image|video`, the file uploaded through Reddit's media
 * lease, media-upload.ts; a video gets a blank poster image, which Reddit requires), with 2 to 20
 * images a gallery (alt text as captions); each carries the block's text as its body. Flair
 * (`flairId`, `flairText`), `nsfw` and `spoiler` are options.
 * Later blocks are comments on the submission (`POST /api/comment`), text only.
 *
 * Reddit answers refusals inside HTTP 200 (`json.errors`, http.ts). A media submit answers without
 * the post: its `json.data.websocket_url` names a socket that sends one message once the media is
 * processed, `{"type":"success","payload":{"redirect":"<post url>"}}` or `{"type":"failed"}` (as
 * PRAW reads it: https://github.com/praw-dev/praw `praw/models/reddit/subreddit/subreddit.py`
 * `_submit_media`). The socket's host is named by the network, so it is connected to through the
 * guarded path only (guarded-websocket.ts: `wss`, checked addresses). The client saves the socket's
 * address with the claim (`progress`), then waits on it at most `mediaWaitMs`:
 * - `success`: the post's id is in the redirect: done, exactly once;
 * - `failed`: Reddit made no post (its media could not be processed): a permanent failure;
 * - no message yet (still processing): outcome-unknown; the engine's `lookup` opens the saved socket
 *   again (and reads the listing) until Reddit answers, and never resends meanwhile (a lookup
 *   that cannot tell throws, which the engine counts as a check, not as "not sent");
 * - the socket closed without a message, or could not be opened (refused by the address policy,
 *   not reachable): the listing `/user/{name}/submitted` is the fallback, matched by title and
 *   by the body compared loosely (Reddit re-renders a media post's markdown: links, line breaks,
 *   escapes), then outcome-unknown as before.
 * Reddit takes no client key, so `lookup` matches the account's newest submissions (or the post's
 * newest comments) by text and time.
 *
 * Edits: the text of text posts and comments (`POST /api/editusertext`); Reddit lets no title, and
 * no media post's body, be edited: those are refused clearly. Deletes: `POST /api/del`.
 * Comments (reading them, replying, deleting replies) are in comments.ts.
 */

export interface RedditClientOptions {
  /** Default `https://oauth.reddit.com`. */
  baseUrl?: string;
  timeoutMs?: number;
  /** Default: `REDDIT_USER_AGENT`, else Herald's own. */
  userAgent?: string;
  /** How long a media post may take to show in the account's listing before the call gives up (default 15 s, at most 20 s). */
  mediaWaitMs?: number;
  /** Between reads of the listing while waiting (default 1 s). */
  pollIntervalMs?: number;
  /**
   * How long after a send the listings may still miss a post (default 300 s: a media post shows
   * only once Reddit has processed it, which takes minutes for a video; a resend before then could
   * post it twice).
   */
  consistencyWindowSeconds?: number;
  /** The guarded path's policy for the media-post socket Reddit names; default: strict. */
  outbound?: OutboundPolicy;
}

/** What a media send saves with the claim: the socket that will tell which post it made. */
interface SavedSocket {
  websocketUrl: string;
  kind: 'image' | 'video';
}

const savedSocketOf = (saved: Record<string, unknown> | null | undefined): SavedSocket | null => {
  const reddit = (saved as { reddit?: { websocketUrl?: unknown; kind?: unknown } } | null | undefined)
    ?.reddit;
  if (typeof reddit?.websocketUrl !== 'string') return null;
  return { websocketUrl: reddit.websocketUrl, kind: reddit.kind === 'video' ? 'video' : 'image' };
};

/** A post's id from the url Reddit redirects to (`/comments/<id>/`, `/gallery/<id>`, `redd.it/<id>`), as PRAW reads it. */
export const postIdOfUrl = (url: string): string | null => {
  let parsed: URL;
  try {
    parsed = new URL(url, 'https://www.reddit.com');
  } catch {
    return null;
  }
  const path = parsed.pathname;
  const id =
    /\/comments\/([0-9a-z]+)(?:\/|$)/i.exec(path)?.[1] ??
    /^\/gallery\/([0-9a-z]+)\/?$/i.exec(path)?.[1] ??
    (/(^|\.)redd\.it$/i.test(parsed.hostname) ? /^\/([0-9a-z]+)\/?$/i.exec(path)?.[1] : undefined);
  return id ? id.toLowerCase() : null;
};

/** The media socket's message: the post it made, that it failed, or something unreadable (null). */
const socketVerdict = (text: string): { redirect: string; id: string } | 'failed' | null => {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return null;
  }
  const type = stringField(message, 'type');
  if (type === 'failed') return 'failed';
  const redirect = (message as { payload?: { redirect?: unknown } } | null)?.payload?.redirect;
  if (type !== 'success' || typeof redirect !== 'string') return null;
  const id = postIdOfUrl(redirect);
  return id ? { redirect, id } : null;
};

export const DEFAULT_REDDIT_CONSISTENCY_WINDOW_SECONDS = 300;

/** Tolerance on `created_utc` against our clock when matching a post to a send. */
const CLOCK_SKEW_SECONDS = 5;

const WEB = 'https://www.reddit.com';

type Thing = Record<string, unknown>;

/** The `data` of each child of a Reddit listing. */
const childrenOf = (listing: unknown): Thing[] => {
  const children = (listing as { data?: { children?: unknown } } | null)?.data?.children;
  return Array.isArray(children)
    ? children.flatMap((child) => {
        const data = (child as { data?: unknown } | null)?.data;
        return data && typeof data === 'object' ? [data as Thing] : [];
      })
    : [];
};

const optionText = (options: PublishBlockInput['options'], key: string): string | undefined => {
  const value = options[key];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};

/**
 * Text compared the way Reddit may have re-rendered it: a media post's body is kept as rich text
 * and its markdown rendered back (`[url](url)` for a bare link, paragraph breaks for line breaks,
 * markdown escapes, trimmed lines), so links are unwrapped, escapes dropped and whitespace runs
 * collapsed on both sides before comparing.
 */
export const canonicalText = (text: string): string =>
  text
    .replace(/\[([^\]]*)\]\(([^)\s]+)\)/g, (whole, label: string, url: string) =>
      label === url ? url : whole,
    )
    .replace(/\\([\\`*_{}[\]()#+\-.!>~|^&])/g, '$1')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/\s+/g, ' ')
    .trim();

const sameText = (a: unknown, b: string) => typeof a === 'string' && canonicalText(a) === canonicalText(b);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class RedditClient implements NetworkClient {
  readonly platform = 'reddit' as const;
  readonly consistencyWindowSeconds: number;
  private readonly connection: RedditConnection;
  private readonly mediaWaitMs: number;
  private readonly pollIntervalMs: number;
  private readonly outbound: OutboundPolicy;
  /** Account names by a hash of the access token (`/api/v1/me`), so lookups cost one call per token. */
  private readonly names = new Map<string, string>();
  private readonly commentsApi = new RedditComments(
    (credentials, request, alsoFine) => this.call(credentials, request, alsoFine),
    (credentials) => this.nameOf(credentials),
  );

  constructor(options: RedditClientOptions = {}) {
    this.connection = {
      baseUrl: baseUrlOf(options.baseUrl ?? 'https://oauth.reddit.com'),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      userAgent: redditUserAgentOf(options.userAgent),
    };
    this.mediaWaitMs = Math.min(options.mediaWaitMs ?? 15_000, 20_000);
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.consistencyWindowSeconds =
      options.consistencyWindowSeconds ?? DEFAULT_REDDIT_CONSISTENCY_WINDOW_SECONDS;
    this.outbound = options.outbound ?? STRICT_OUTBOUND;
  }

  private call(
    credentials: NetworkCredentials,
    request: Parameters<typeof redditCall>[2],
    alsoFine: number[] = [],
  ) {
    return redditCall(this.connection, credentials.accessToken, request, alsoFine);
  }

  /** The account's name (Reddit addresses users by name), from `/api/v1/me`. */
  private async nameOf(credentials: NetworkCredentials): Promise<string> {
    const key = createHash('sha256').update(credentials.accessToken).digest('hex');
    const known = this.names.get(key);
    if (known) return known;
    const answer = await this.call(credentials, { method: 'GET', path: '/api/v1/me' });
    const name = stringField(answer.body, 'name');
    if (!name) throw new NetworkError('transient', "Reddit's /api/v1/me answered without the account's name");
    if (this.names.size > 1000) this.names.clear();
    this.names.set(key, name);
    return name;
  }

  async publish(input: PublishBlockInput): Promise<RemoteBlock> {
    if (input.parent) {
      if (input.media.length > 0) {
        throw new NetworkError(
          'permanent',
          'Reddit comments carry text only: put the file on the first block of a Reddit post.',
        );
      }
      return this.comment(input, input.parent.root);
    }
    const subreddit = optionText(input.options, 'subreddit')?.replace(/^\/?r\//i, '');
    if (!subreddit) throw new NetworkError('permanent', 'Reddit needs the subreddit option to post.');
    const title = input.title?.trim();
    if (!title) throw new NetworkError('permanent', 'Reddit needs a title to post.');
    if (input.media.length > 1 && input.media.some((m) => !m.mimeType.startsWith('image/'))) {
      throw new NetworkError(
        'permanent',
        'A Reddit video goes alone: a post takes one video, or 1 to 20 images.',
      );
    }
    if (input.media.length > 20)
      throw new NetworkError('permanent', 'A Reddit gallery takes at most 20 images.');
    const form: Record<string, string> = {
      api_type: 'json',
      sr: subreddit,
      title,
      text: input.content,
      sendreplies: 'true',
      resubmit: 'true',
      nsfw: String(input.options.nsfw === 'true'),
      spoiler: String(input.options.spoiler === 'true'),
    };
    const flairId = optionText(input.options, 'flairId');
    const flairText = optionText(input.options, 'flairText');
    if (flairId) form.flair_id = flairId;
    if (flairText) form.flair_text = flairText;
    const link = optionText(input.options, 'link');
    if (link && input.media.length > 0) {
      throw new NetworkError(
        'permanent',
        'A Reddit link post carries no files: drop the link option or the files.',
      );
    }
    if (input.media.length > 1) return this.gallery(input, form);
    const file = input.media[0];
    if (!file) {
      if (link) {
        form.kind = 'link';
        form.url = link;
      } else {
        form.kind = 'self';
      }
      const answer = await this.call(input.credentials, { method: 'POST', path: '/api/submit', form });
      const data = (answer.body as { json?: { data?: unknown } } | null)?.json?.data;
      const name = stringField(data, 'name');
      const url = stringField(data, 'url');
      if (!name?.startsWith('t3_')) {
        throw new NetworkError('transient', 'Reddit accepted the post but its answer had no post id', {
          status: answer.status,
          outcomeUnknown: true,
        });
      }
      return {
        remoteId: name,
        remoteUrl: url ?? `${WEB}/comments/${name.slice(3)}/`,
        meta: { kind: form.kind },
      };
    }
    const isVideo = file.mimeType.startsWith('video/');
    const token = input.credentials.accessToken;
    form.kind = isVideo ? 'video' : 'image';
    form.url = (await uploadRedditMedia(this.connection, token, storedFile(file))).location;
    if (isVideo) {
      form.video_poster_url = (
        await uploadRedditMedia(this.connection, token, blankPoster(file.mediaId))
      ).location;
    }
    const author = await this.nameOf(input.credentials);
    const sentAt = new Date();
    const what: SavedSocket['kind'] = isVideo ? 'video' : 'image';
    const answer = await this.call(input.credentials, { method: 'POST', path: '/api/submit', form });
    // The post is sent: from here on, whatever goes wrong, the outcome is unknown (never "not
    // sent"), so the engine looks it up instead of submitting it again.
    const data = (answer.body as { json?: { data?: unknown } } | null)?.json?.data;
    const websocketUrl = stringField(data, 'websocket_url');
    if (websocketUrl)
      await input.progress?.save({ reddit: { websocketUrl, kind: what } satisfies SavedSocket });
    const heard = websocketUrl ? await this.listen(websocketUrl, this.mediaWaitMs, what) : null;
    if (heard?.kind === 'post') return heard.block;
    if (heard?.kind === 'failed') {
      throw new NetworkError(
        'permanent',
        `Reddit could not process the ${what} of this post and made no post (its media socket answered "failed"); check that the file opens.`,
      );
    }
    if (heard?.kind === 'waiting') {
      // Still processing: the engine's lookup asks the saved socket again; never sent twice.
      const found = await this.findPostOrUnknown(
        input.credentials,
        author,
        input.content,
        sentAt,
        title,
        what,
      );
      if (found) return found;
      throw new NetworkError(
        'transient',
        `Reddit accepted the ${what} post and is still processing it (no word on its socket within ${Math.round(this.mediaWaitMs / 1000)} s)`,
        { outcomeUnknown: true },
      );
    }
    // No socket, or it closed without a word, or it could not be opened: the listing is the fallback.
    const deadline = Date.now() + this.mediaWaitMs;
    for (;;) {
      const found = await this.findPostOrUnknown(
        input.credentials,
        author,
        input.content,
        sentAt,
        title,
        what,
      );
      if (found) return found;
      if (Date.now() + this.pollIntervalMs > deadline) break;
      await sleep(this.pollIntervalMs);
    }
    throw new NetworkError(
      'transient',
      `Reddit accepted the ${what} post but has not shown it yet (media processing${heard ? `; its socket ${heard.why}` : ''})`,
      { outcomeUnknown: true },
    );
  }

  /** `findPost` after a media send: a failed read is outcome-unknown (the post was sent). */
  private async findPostOrUnknown(
    credentials: NetworkCredentials,
    author: string,
    content: string,
    sentAt: Date,
    title: string,
    what: string,
  ): Promise<RemoteBlock | null> {
    try {
      return await this.findPost(credentials, author, content, sentAt, title);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new NetworkError(
        'transient',
        `Reddit accepted the ${what} post, but reading it back failed (${reason})`,
        { outcomeUnknown: true },
      );
    }
  }

  /**
   * Waits at most `waitMs` for the media socket's first message (guarded-websocket.ts): the post
   * it made, `failed`, `waiting` (open, no word yet), or `silent` (closed without a word, could
   * not be opened, or said something unreadable), with why.
   */
  private async listen(
    websocketUrl: string,
    waitMs: number,
    kind: SavedSocket['kind'],
  ): Promise<
    | { kind: 'post'; block: RemoteBlock }
    | { kind: 'failed' }
    | { kind: 'waiting' }
    | { kind: 'silent'; why: string }
  > {
    let first: WebSocketFirst;
    try {
      first = await receiveFirstWebSocketMessage(this.outbound, websocketUrl, {
        connectTimeoutMs: this.connection.timeoutMs,
        waitMs,
        headers: { 'user-agent': this.connection.userAgent },
      });
    } catch (error) {
      const refused = error instanceof TransportError && GUARD_REFUSALS.has(error.code);
      const reason = error instanceof Error ? error.message : String(error);
      return {
        kind: 'silent',
        why: `${refused ? 'was refused by the address policy' : 'could not be opened'} (${reason})`,
      };
    }
    if (first.kind === 'waiting') return { kind: 'waiting' };
    if (first.kind === 'closed') return { kind: 'silent', why: 'closed without a message' };
    const verdict = socketVerdict(first.text);
    if (verdict === 'failed') return { kind: 'failed' };
    if (!verdict) return { kind: 'silent', why: `sent an unreadable message (${first.text.slice(0, 100)})` };
    const remoteUrl = verdict.redirect.startsWith('https://')
      ? verdict.redirect
      : `${WEB}/comments/${verdict.id}/`;
    return { kind: 'post', block: { remoteId: `t3_${verdict.id}`, remoteUrl, meta: { kind } } };
  }

  /**
   * 2 to 20 images: `POST /api/submit_gallery_post.json` (a JSON body) with each upload's asset id
   * and its alt text as the caption (Reddit's captions hold 180 characters: longer alt text is cut).
   * Reddit answers the gallery's id at once.
   */
  private async gallery(input: PublishBlockInput, form: Record<string, string>): Promise<RemoteBlock> {
    const items: { media_id: string; caption: string; outbound_url: string }[] = [];
    for (const file of input.media) {
      const { assetId } = await uploadRedditMedia(
        this.connection,
        input.credentials.accessToken,
        storedFile(file),
      );
      const alt = [...(file.altText ?? '')];
      items.push({
        media_id: assetId,
        caption: alt.length > 180 ? `${alt.slice(0, 179).join('')}…` : alt.join(''),
        outbound_url: '',
      });
    }
    const answer = await this.call(input.credentials, {
      method: 'POST',
      path: '/api/submit_gallery_post.json',
      json: {
        api_type: 'json',
        show_error_list: true,
        sr: form.sr,
        title: form.title,
        text: form.text,
        items,
        nsfw: form.nsfw === 'true',
        spoiler: form.spoiler === 'true',
        sendreplies: true,
        validate_on_submit: true,
        ...(form.flair_id ? { flair_id: form.flair_id } : {}),
        ...(form.flair_text ? { flair_text: form.flair_text } : {}),
      },
    });
    const data = (answer.body as { json?: { data?: unknown } } | null)?.json?.data;
    const idField = stringField(data, 'id');
    const url = stringField(data, 'url');
    const id = idField?.replace(/^t3_/, '') ?? (url ? /\/gallery\/([0-9a-z]+)/.exec(url)?.[1] : undefined);
    if (!id) {
      throw new NetworkError('transient', 'Reddit accepted the gallery but its answer had no post id', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    return { remoteId: `t3_${id}`, remoteUrl: url ?? `${WEB}/gallery/${id}`, meta: { kind: 'gallery' } };
  }

  private async comment(input: PublishBlockInput, root: RemoteBlock): Promise<RemoteBlock> {
    const answer = await this.call(input.credentials, {
      method: 'POST',
      path: '/api/comment',
      form: { api_type: 'json', thing_id: root.remoteId, text: input.content },
    });
    const things = (answer.body as { json?: { data?: { things?: unknown } } } | null)?.json?.data?.things;
    const data = Array.isArray(things) ? (things[0] as { data?: unknown } | undefined)?.data : undefined;
    const name = stringField(data, 'name');
    if (!name?.startsWith('t1_')) {
      throw new NetworkError('transient', 'Reddit accepted the comment but its answer had no comment id', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    return this.commentBlock(data as Thing, root.remoteId);
  }

  private commentBlock(data: Thing, postName: string): RemoteBlock {
    const name = String(data.name);
    const permalink = stringField(data, 'permalink');
    return {
      remoteId: name,
      remoteUrl: permalink
        ? `${WEB}${permalink}`
        : `${WEB}/comments/${postName.slice(3)}/_/${name.slice(3)}/`,
      meta: { kind: 'comment', postName },
    };
  }

  /** The account's submission with this text made since `since` (and this title when given). */
  private async findPost(
    credentials: NetworkCredentials,
    author: string,
    content: string,
    since: Date,
    title?: string,
  ): Promise<RemoteBlock | null> {
    const answer = await this.call(credentials, {
      method: 'GET',
      path: `/user/${encodeURIComponent(author)}/submitted?sort=new&limit=25&raw_json=1`,
    });
    const from = since.getTime() / 1000 - CLOCK_SKEW_SECONDS;
    for (const post of childrenOf(answer.body)) {
      const name = stringField(post, 'name');
      const created = post.created_utc;
      if (!name?.startsWith('t3_') || typeof created !== 'number' || created < from) continue;
      if (!sameText(post.selftext, content)) continue;
      if (title !== undefined && !sameText(post.title, title)) continue;
      const permalink = stringField(post, 'permalink');
      const kind =
        post.is_self === true
          ? 'self'
          : stringField(post, 'post_hint') === 'link'
            ? 'link'
            : post.is_gallery === true
              ? 'gallery'
              : stringField(post, 'post_hint') === 'image'
                ? 'image'
                : 'video';
      return {
        remoteId: name,
        remoteUrl: permalink ? `${WEB}${permalink}` : `${WEB}/comments/${name.slice(3)}/`,
        meta: { kind },
      };
    }
    return null;
  }

  /** Finds a block whose answer was lost: the newest submissions, or the post's newest comments. */
  async lookup(input: LookupBlockInput): Promise<RemoteBlock | null> {
    const author = await this.nameOf(input.credentials);
    if (!input.parent) {
      // A media send saved its socket: Reddit's own word on which post it made comes first.
      const saved = savedSocketOf(input.saved);
      const heard = saved
        ? await this.listen(saved.websocketUrl, Math.min(this.mediaWaitMs, 10_000), saved.kind)
        : null;
      if (heard?.kind === 'post') return heard.block;
      const found = await this.findPost(input.credentials, author, input.content, input.since);
      if (found || heard?.kind !== 'waiting') return found;
      // Still processing: "not found" now could make the engine resend a post Reddit is making.
      throw new NetworkError(
        'transient',
        'Reddit is still processing the media post (its socket has not answered yet); it is looked up again later',
      );
    }
    const postName = input.parent.root.remoteId;
    const answer = await this.call(input.credentials, {
      method: 'GET',
      path: `/comments/${encodeURIComponent(postName.replace(/^t3_/, ''))}?sort=new&limit=100&raw_json=1`,
    });
    const listings = Array.isArray(answer.body) ? answer.body : [];
    const from = input.since.getTime() / 1000 - CLOCK_SKEW_SECONDS;
    for (const comment of childrenOf(listings[1])) {
      const created = comment.created_utc;
      if (stringField(comment, 'author')?.toLowerCase() !== author.toLowerCase()) continue;
      if (!stringField(comment, 'name')?.startsWith('t1_') || typeof created !== 'number' || created < from)
        continue;
      if (sameText(comment.body, input.content)) return this.commentBlock(comment, postName);
    }
    return null;
  }

  async edit(input: EditBlockInput): Promise<void> {
    const kind = input.block.meta.kind ?? (input.block.remoteId.startsWith('t1_') ? 'comment' : 'self');
    if (kind !== 'self' && kind !== 'comment') {
      throw new NetworkError(
        'permanent',
        "Reddit lets only a text post's or a comment's text be edited, not a link, image, gallery or video post's.",
      );
    }
    await this.call(input.credentials, {
      method: 'POST',
      path: '/api/editusertext',
      form: { api_type: 'json', thing_id: input.block.remoteId, text: input.content },
    });
  }

  async delete(input: DeleteBlockInput): Promise<void> {
    // Reddit answers 200 {} also for a thing already gone: a retried delete succeeds.
    await this.call(input.credentials, {
      method: 'POST',
      path: '/api/del',
      form: { id: input.block.remoteId },
    });
  }

  metrics(input: MetricsInput): Promise<MetricsReading> {
    return readRedditMetrics(this.connection, input);
  }

  /** The post's comments and Herald's replies to them: see comments.ts. */
  comments(input: CommentsInput): Promise<CommentsPage> {
    return this.commentsApi.comments(input);
  }

  findComment(input: CommentInput): Promise<RemoteComment | null> {
    return this.commentsApi.findComment(input);
  }

  reply(input: ReplyInput): Promise<RemoteComment> {
    return this.commentsApi.reply(input);
  }

  lookupReply(input: LookupReplyInput): Promise<RemoteComment | null> {
    return this.commentsApi.lookupReply(input);
  }

  deleteReply(input: DeleteReplyInput): Promise<void> {
    return this.commentsApi.deleteReply(input);
  }
}
