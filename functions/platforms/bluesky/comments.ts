import type {
  CommentInput,
  CommentsInput,
  CommentsPage,
  DeleteReplyInput,
  LookupReplyInput,
  NetworkClient,
  NetworkCredentials,
  RemoteBlock,
  RemoteComment,
  ReplyInput,
} from '../../ports/network-client.ts';
import type { HttpAnswer } from '../network-http.ts';

/**
 * Reading a post's replies on Bluesky (the client's `comments` and `findComment`): the AppView's
 * `app.bsky.feed.getPostThread` (https://docs.bsky.app/docs/api/app-bsky-feed-get-post-thread),
 * asked through the account's PDS, which proxies it. The thread is a tree of `#threadViewPost`
 * nodes cut at `depth` (default 6; Herald asks the maximum, 1000) and has no cursor: one call
 * returns the whole conversation, and pages are cut from it. A reply the viewer may not see comes as a `#blockedPost` node and
 * a missing one as `#notFoundPost`; neither shows its own replies, so both are skipped whole.
 */

/** The deepest thread getPostThread returns (its lexicon's maximum `depth`). */
export const THREAD_DEPTH = 1000;

const THREAD_VIEW = 'app.bsky.feed.defs#threadViewPost';

/** The AppView's `postView`, as far as a comment needs it. */
export interface BlueskyPostView {
  uri?: unknown;
  cid?: unknown;
  author?: { did?: unknown; handle?: unknown; displayName?: unknown };
  record?: {
    text?: unknown;
    createdAt?: unknown;
    reply?: { root?: { uri?: unknown }; parent?: { uri?: unknown } };
  };
  likeCount?: unknown;
  indexedAt?: unknown;
}

interface ThreadNode {
  $type?: unknown;
  post?: BlueskyPostView;
  replies?: unknown;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** `https://bsky.app/profile/<handle or DID>/post/<rkey>`, from the post's at-uri. */
export const postUrlOf = (uri: string, handle: string | null): string | null => {
  const match = /^at:\/\/([^/]+)\/[^/]+\/([^/]+)$/.exec(uri);
  if (!match) return null;
  return `https://bsky.app/profile/${handle ?? match[1]}/post/${match[2]}`;
};

/** A reply post as a comment; null when it answers nothing (the thread's root) or lacks its ids. */
export const commentOfPost = (post: BlueskyPostView): RemoteComment | null => {
  const uri = text(post.uri);
  const cid = text(post.cid);
  const parent = text(post.record?.reply?.parent?.uri);
  if (!uri || !cid || !parent) return null;
  // An author whose handle does not verify is shown as `handle.invalid`: no handle to name.
  const handle = text(post.author?.handle);
  const shownHandle = handle === 'handle.invalid' ? null : handle;
  const createdAt = text(post.record?.createdAt) ?? text(post.indexedAt);
  return {
    remoteId: uri,
    parentRemoteId: parent,
    author: { name: text(post.author?.displayName), handle: shownHandle },
    text: typeof post.record?.text === 'string' ? post.record.text : '',
    createdAt:
      createdAt && !Number.isNaN(Date.parse(createdAt))
        ? new Date(createdAt).toISOString()
        : new Date(0).toISOString(),
    likeCount: typeof post.likeCount === 'number' ? post.likeCount : null,
    url: postUrlOf(uri, shownHandle),
    meta: { uri, cid },
  };
};

/** Every reply under the thread's root, flat, parents before their replies. */
export const flattenThread = (thread: unknown): RemoteComment[] => {
  const out: RemoteComment[] = [];
  const walk = (node: ThreadNode, isRoot: boolean) => {
    if (node.$type !== THREAD_VIEW || !node.post) return; // blocked, not found, or unknown
    if (!isRoot) {
      const comment = commentOfPost(node.post);
      if (comment) out.push(comment);
    }
    if (Array.isArray(node.replies)) for (const reply of node.replies) walk(reply as ThreadNode, false);
  };
  if (thread && typeof thread === 'object') walk(thread as ThreadNode, true);
  return out;
};

/** What the comment calls use of the client: its posts' own paths, and a read on the account's PDS. */
export interface BlueskyCommentsDeps {
  client: Pick<NetworkClient, 'publish' | 'lookup' | 'delete'>;
  /** A GET of the XRPC method (with its query) on the account's PDS, classified like every call. */
  read(credentials: NetworkCredentials, nsidAndQuery: string): Promise<HttpAnswer>;
}

/**
 * The client's comment calls. A reply is a post replying to the comment (root: the post, parent:
 * the comment), made by `publish` itself: the same record key derived from the idempotency key,
 * the same recovery of a lost answer, the same image upload. So a lost reply is found by `lookup`
 * (`getRecord` at that key, which the PDS answers from its own writes: no consistency window), and
 * a reply is deleted like a block (`deleteRecord`; a record already gone is a success).
 */
export const blueskyComments = ({ client, read }: BlueskyCommentsDeps) => {
  const rootUri = (block: RemoteBlock) => block.meta.uri ?? block.remoteId;

  /** The comment as the parent block of a reply under the post. */
  const parentOf = (root: RemoteBlock, comment: RemoteComment) => ({
    block: {
      remoteId: comment.remoteId,
      remoteUrl: comment.url ?? '',
      meta: { uri: comment.remoteId, ...comment.meta },
    },
    root,
  });

  const ownReply = (
    credentials: NetworkCredentials,
    block: RemoteBlock,
    parentId: string,
    content: string,
    createdAt: Date,
  ): RemoteComment => {
    const handle = credentials.remoteAccountId.startsWith('did:') ? null : credentials.remoteAccountId;
    return {
      remoteId: block.remoteId,
      parentRemoteId: parentId,
      author: { name: null, handle },
      text: content,
      createdAt: createdAt.toISOString(),
      likeCount: null,
      url: postUrlOf(block.remoteId, handle),
      meta: block.meta,
    };
  };

  return {
    /**
     * getPostThread has no cursor: the whole conversation comes in one answer, and Herald's pages
     * are cut from it here (`nextCursor` is the offset of the next page in the flattened thread, read
     * again for each page; a reply made meanwhile can shift a page by one). `since` is applied
     * here too, on each reply's `createdAt`, before the pages are cut.
     */
    async comments(input: CommentsInput): Promise<CommentsPage> {
      const query = new URLSearchParams({
        uri: rootUri(input.block),
        depth: String(THREAD_DEPTH),
        parentHeight: '0',
      });
      const answer = await read(input.credentials, `app.bsky.feed.getPostThread?${query}`);
      const all = flattenThread((answer.body as { thread?: unknown } | undefined)?.thread);
      const since = input.since?.getTime();
      const shown = since === undefined ? all : all.filter((c) => Date.parse(c.createdAt) >= since);
      const offset = /^\d{1,6}$/.test(input.cursor ?? '') ? Number(input.cursor) : 0;
      const end = offset + input.limit;
      return { comments: shown.slice(offset, end), nextCursor: end < shown.length ? String(end) : null };
    },

    /** `getPosts` of the one uri: the reply when its `reply.root` is this post; null when not shown. */
    async findComment(input: CommentInput): Promise<RemoteComment | null> {
      if (!/^at:\/\/[^/]+\/app\.bsky\.feed\.post\/[^/]+$/.test(input.remoteId)) return null;
      const answer = await read(
        input.credentials,
        `app.bsky.feed.getPosts?${new URLSearchParams({ uris: input.remoteId })}`,
      );
      const posts = (answer.body as { posts?: BlueskyPostView[] } | undefined)?.posts ?? [];
      const post = posts.find((candidate) => candidate.uri === input.remoteId);
      if (!post || post.record?.reply?.root?.uri !== rootUri(input.block)) return null;
      return commentOfPost(post);
    },

    async reply(input: ReplyInput): Promise<RemoteComment> {
      const createdAt = new Date();
      const block = await client.publish({
        credentials: input.credentials,
        content: input.content,
        media: input.media,
        title: null,
        postType: null,
        options: {},
        parent: parentOf(input.block, input.comment),
        idempotencyKey: input.idempotencyKey,
        round: 1,
      });
      return ownReply(input.credentials, block, input.comment.remoteId, input.content, createdAt);
    },

    async lookupReply(input: LookupReplyInput): Promise<RemoteComment | null> {
      const block = await (client.lookup as NonNullable<typeof client.lookup>)({
        credentials: input.credentials,
        idempotencyKey: input.idempotencyKey,
        content: input.content,
        parent: parentOf(input.block, input.comment),
        since: input.since,
      });
      return block && ownReply(input.credentials, block, input.comment.remoteId, input.content, input.since);
    },

    async deleteReply(input: DeleteReplyInput): Promise<void> {
      const uri = input.reply.meta.uri ?? input.reply.remoteId;
      await client.delete({
        credentials: input.credentials,
        block: { remoteId: uri, remoteUrl: '', meta: { ...input.reply.meta, uri } },
      });
    },
  };
};
