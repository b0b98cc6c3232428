import { randomBytes } from 'node:crypto';
import type { SimCommentState, SimCommentStore } from '../framework/comments.ts';
import { objectOf, type SimContext, SimHttpError, type SimRoute } from '../framework/framework.ts';
import { googleError } from './errors.ts';
import type { YouTubeState } from './state.ts';

/**
 * YouTube's comments as the Data API v3 serves them (https://developers.google.com/youtube/v3/docs/commentThreads,
 * https://developers.google.com/youtube/v3/docs/comments):
 * - two levels only: a thread is a top-level comment (its id the thread's id) and its replies, whose
 *   `snippet.parentId` is always the top-level comment (a reply to a reply is stored in the thread,
 *   as YouTube's own UI does); a reply's id is `<thread id>.<22 characters>`, as YouTube's are;
 * - `GET /youtube/v3/commentThreads?part=snippet,replies&videoId=|id=&order=time&maxResults=&pageToken=`:
 *   newest thread first (`order=time`), at most `maxResults` (1-100, default 20) threads a page,
 *   each with at most 5 of its replies inline (`snippet.totalReplyCount` says how many there are);
 *   403 `commentsDisabled` when the video's comments are off (`POST /_sim/youtube/comments-disabled`,
 *   and every video made for kids),
 *   404 `videoNotFound`;
 * - `GET /youtube/v3/comments?part=snippet&parentId=|id=`: a thread's replies, oldest first, paged;
 *   or comments by id. Its snippets carry no `videoId`: which video a comment is under is read from
 *   its thread (`commentThreads.list?id=`);
 * - `POST /youtube/v3/comments?part=snippet {snippet:{parentId, textOriginal}}` (replies only:
 *   top-level comments are `commentThreads.insert`, which Herald does not use): 404
 *   `parentCommentNotFound`, 400 `operationNotSupported` for a parent that is itself a reply,
 *   `commentTextRequired`, `commentTextTooLong` (over 10,000 characters); sim tokens apply;
 * - `DELETE /youtube/v3/comments?id=`: the author's own comment, 204; 404 `commentNotFound` once gone;
 * - held for review (`hidden`) and deleted comments are listed nowhere and not found by id;
 * - `textOriginal` is shown only to the comment's author (Google: "only guaranteed if the viewer is
 *   the comment's author"); everyone gets `textDisplay`;
 * - `authorDisplayName` is the author's handle with its `@` (as YouTube shows names since handles),
 *   `authorChannelUrl` `http://www.youtube.com/@handle`, `authorChannelId.value` the channel id.
 * Quota: the simulator's quota switch refuses these calls like every other (`quotaExceeded`).
 */
export interface SimYouTubeComment {
  id: string;
  videoId: string;
  /** The top-level comment (thread) for a reply; null for a top-level comment. */
  parentId: string | null;
  authorChannelId: string;
  authorName: string;
  authorHandle: string;
  text: string;
  publishedAt: string;
  likeCount: number;
  state: SimCommentState;
}

const idChars = (n: number) => randomBytes(n).toString('base64url').slice(0, n);
const INLINE_REPLIES = 5;
const MAX_TEXT = 10_000;

const pageTokenOf = (offset: number) => Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
const offsetOf = (token: string | null): number => {
  if (!token) return 0;
  try {
    const o = (JSON.parse(Buffer.from(token, 'base64url').toString()) as { o?: unknown }).o;
    if (typeof o === 'number' && Number.isInteger(o) && o >= 0) return o;
  } catch {
    // Google's answer to a token it did not issue follows.
  }
  throw new SimHttpError(
    googleError(400, 'invalidPageToken', 'The request specifies an invalid page token.'),
  );
};

export const youtubeComments = (s: YouTubeState) => {
  const { videos, requireScope, channelOf } = s;
  const comments = new Map<string, SimYouTubeComment>();
  const disabled = new Set<string>();

  /**
   * Comments off: switched off for the video, or a video made for kids (YouTube turns comments off
   * on those: https://support.google.com/youtube/answer/9383587).
   */
  const commentsOff = (videoId: string) => disabled.has(videoId) || videos.get(videoId)?.madeForKids === true;

  const shown = (c: SimYouTubeComment | undefined): c is SimYouTubeComment =>
    c !== undefined && c.state === 'visible' && videos.has(c.videoId);

  const store: SimCommentStore = {
    add: ({ parentId, text, author, createdAt }) => {
      const parent = comments.get(parentId);
      const videoId = videos.has(parentId) ? parentId : parent?.videoId;
      if (!videoId) return null;
      const top = parent ? (parent.parentId ?? parent.id) : null;
      const id = top ? `${top}.${idChars(22)}` : `Ugz${idChars(23)}`;
      comments.set(id, {
        id,
        videoId,
        parentId: top,
        authorChannelId: `UC${idChars(22)}`,
        authorName: author.name,
        authorHandle: author.handle,
        text,
        publishedAt: createdAt.toISOString(),
        likeCount: 0,
        state: 'visible',
      });
      return id;
    },
    setState: (id, state) => {
      const comment = comments.get(id);
      if (!comment) return false;
      comment.state = state;
      return true;
    },
  };

  const resourceOf = (c: SimYouTubeComment, viewer: string, textFormat: string | null) => ({
    kind: 'youtube#comment',
    etag: idChars(27),
    id: c.id,
    snippet: {
      channelId: videos.get(c.videoId)?.account ?? '',
      textDisplay:
        textFormat === 'plainText'
          ? c.text
          : c.text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\n/g, '<br>'),
      ...(c.authorChannelId === viewer ? { textOriginal: c.text } : {}),
      ...(c.parentId ? { parentId: c.parentId } : {}),
      authorDisplayName: `@${c.authorHandle}`,
      authorProfileImageUrl: `https://yt3.ggpht.com/ytc/${c.authorChannelId}=s48-c-k-c0x00ffffff-no-rj`,
      authorChannelUrl: `http://www.youtube.com/@${c.authorHandle}`,
      authorChannelId: { value: c.authorChannelId },
      canRate: true,
      viewerRating: 'none',
      likeCount: c.likeCount,
      publishedAt: c.publishedAt,
      updatedAt: c.publishedAt,
    },
  });

  const repliesOf = (thread: string) =>
    [...comments.values()]
      .filter((c) => c.parentId === thread && shown(c))
      .sort((a, b) => a.publishedAt.localeCompare(b.publishedAt));

  const threadOf = (top: SimYouTubeComment, viewer: string, parts: string[], textFormat: string | null) => {
    const replies = repliesOf(top.id);
    return {
      kind: 'youtube#commentThread',
      etag: idChars(27),
      id: top.id,
      snippet: {
        channelId: videos.get(top.videoId)?.account ?? '',
        videoId: top.videoId,
        topLevelComment: resourceOf(top, viewer, textFormat),
        canReply: true,
        totalReplyCount: replies.length,
        isPublic: true,
      },
      ...(parts.includes('replies') && replies.length > 0
        ? {
            replies: {
              comments: replies.slice(0, INLINE_REPLIES).map((r) => resourceOf(r, viewer, textFormat)),
            },
          }
        : {}),
    };
  };

  const page = <T>(items: T[], ctx: SimContext) => {
    const max = Number(ctx.query.get('maxResults') ?? 20);
    const offset = offsetOf(ctx.query.get('pageToken'));
    const slice = items.slice(offset, offset + max);
    return {
      slice,
      extra: {
        ...(offset + max < items.length ? { nextPageToken: pageTokenOf(offset + max) } : {}),
        pageInfo: { totalResults: items.length, resultsPerPage: max },
      },
    };
  };

  const routes: SimRoute[] = [
    {
      method: 'GET',
      path: '/youtube/v3/commentThreads',
      handler: (ctx) => {
        requireScope(ctx, 'commentThreads.list');
        const viewer = channelOf(ctx).id;
        const parts = (ctx.query.get('part') ?? '').split(',');
        const textFormat = ctx.query.get('textFormat');
        const videoId = ctx.query.get('videoId');
        const ids = ctx.query.get('id');
        let threads: SimYouTubeComment[];
        if (videoId) {
          if (!videos.has(videoId))
            return googleError(
              404,
              'videoNotFound',
              'The video identified by the <code><a href="/youtube/v3/docs/commentThreads/list#videoId">videoId</a></code> parameter could not be found.',
            );
          if (commentsOff(videoId))
            return googleError(
              403,
              'commentsDisabled',
              'The video identified by the <code><a href="/youtube/v3/docs/commentThreads/list#videoId">videoId</a></code> parameter has disabled comments.',
            );
          threads = [...comments.values()].filter((c) => c.videoId === videoId && !c.parentId && shown(c));
        } else if (ids) {
          threads = ids
            .split(',')
            .map((id) => comments.get(id))
            .filter((c): c is SimYouTubeComment => shown(c) && !c.parentId);
        } else {
          return googleError(
            400,
            'missingRequiredParameter',
            'No filter selected. Expected one of: id, videoId.',
          );
        }
        // `order=time` (and Herald asks for it): newest first; `relevance` is YouTube's own ranking.
        threads.sort((a, b) => b.publishedAt.localeCompare(a.publishedAt));
        const { slice, extra } = page(threads, ctx);
        return {
          status: 200,
          body: {
            kind: 'youtube#commentThreadListResponse',
            etag: idChars(27),
            ...extra,
            items: slice.map((t) => threadOf(t, viewer, parts, textFormat)),
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/youtube/v3/comments',
      handler: (ctx) => {
        requireScope(ctx, 'comments.list');
        const viewer = channelOf(ctx).id;
        const textFormat = ctx.query.get('textFormat');
        const parentId = ctx.query.get('parentId');
        const ids = ctx.query.get('id');
        let items: SimYouTubeComment[];
        if (parentId && !ids) items = repliesOf(parentId);
        else if (ids && !parentId)
          items = ids
            .split(',')
            .map((id) => comments.get(id))
            .filter(shown);
        else
          return googleError(
            400,
            'missingRequiredParameter',
            'No filter selected. Expected one of: id, parentId.',
          );
        const { slice, extra } = page(items, ctx);
        return {
          status: 200,
          body: {
            kind: 'youtube#commentListResponse',
            etag: idChars(27),
            ...extra,
            items: slice.map((c) => resourceOf(c, viewer, textFormat)),
          },
        };
      },
    },
    {
      method: 'POST',
      path: '/youtube/v3/comments',
      handler: (ctx) => {
        requireScope(ctx, 'comments.insert');
        const channel = channelOf(ctx);
        s.live.record = ctx.record;
        const snippet = objectOf(objectOf(ctx.body)?.snippet) ?? {};
        const parentId = snippet.parentId;
        const text = snippet.textOriginal;
        if (typeof parentId !== 'string' || parentId === '')
          return googleError(400, 'parentIdMissing', 'The comment must be linked to a parent comment.');
        if (typeof text !== 'string' || text.trim() === '')
          return googleError(
            400,
            'commentTextRequired',
            'The comment resource must contain a snippet.textOriginal.',
          );
        if ([...text].length > MAX_TEXT)
          return googleError(
            400,
            'commentTextTooLong',
            'The snippet.textOriginal property contains too many characters.',
          );
        const parent = comments.get(parentId);
        if (!shown(parent))
          return googleError(
            404,
            'parentCommentNotFound',
            'The specified parent comment could not be found.',
          );
        if (parent.parentId)
          return googleError(
            400,
            'operationNotSupported',
            'The API user is not able to insert a comment in reply to the comment identified by the parentId property: replies answer top-level comments only.',
          );
        if (commentsOff(parent.videoId))
          return googleError(
            403,
            'forbidden',
            'The comment cannot be created: the video has disabled comments.',
          );
        const lost = ctx.screen(text, channel.id);
        const id = `${parent.id}.${idChars(22)}`;
        const reply: SimYouTubeComment = {
          id,
          videoId: parent.videoId,
          parentId: parent.id,
          authorChannelId: channel.id,
          authorName: channel.title,
          authorHandle: (channel.customUrl ?? '@channel').replace(/^@/, ''),
          text,
          publishedAt: new Date().toISOString(),
          likeCount: 0,
          state: 'visible',
        };
        comments.set(id, reply);
        ctx.record({
          kind: 'reply',
          id,
          parentId: parent.id,
          rootId: parent.videoId,
          text,
          account: channel.id,
        });
        return { status: 200, body: resourceOf(reply, channel.id, null), lost };
      },
    },
    {
      method: 'DELETE',
      path: '/youtube/v3/comments',
      handler: (ctx) => {
        requireScope(ctx, 'comments.delete');
        const channel = channelOf(ctx);
        const comment = comments.get(ctx.query.get('id') ?? '');
        if (!comment || comment.state === 'deleted')
          return googleError(404, 'commentNotFound', 'The comment could not be found.');
        if (comment.authorChannelId !== channel.id)
          return googleError(
            403,
            'forbidden',
            'The comment could not be deleted: it is not the channel’s own.',
          );
        comment.state = 'deleted';
        ctx.record({
          kind: 'delete',
          id: comment.id,
          parentId: comment.parentId,
          rootId: comment.videoId,
          text: null,
          account: channel.id,
        });
        return { status: 204 };
      },
    },
    {
      method: 'POST',
      path: '/_sim/youtube/comments-disabled',
      auth: false,
      handler: (ctx) => {
        const body = objectOf(ctx.body) ?? {};
        if (typeof body.videoId !== 'string' || typeof body.disabled !== 'boolean')
          return googleError(400, 'badRequest', 'Send { "videoId": <id>, "disabled": true | false }');
        if (body.disabled) disabled.add(body.videoId);
        else disabled.delete(body.videoId);
        return { status: 204 };
      },
    },
  ];

  return {
    store,
    routes,
    comments,
    reset: () => {
      comments.clear();
      disabled.clear();
    },
    setCommentsDisabled: (videoId: string, off: boolean) => {
      if (off) disabled.add(videoId);
      else disabled.delete(videoId);
    },
  };
};
