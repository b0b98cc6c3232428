/** Platform ids, as served by GET /v1/platforms and stored on channels. */
export const PLATFORM_IDS = [
  'x',
  'linkedin',
  'linkedin_page',
  'instagram',
  'facebook',
  'threads',
  'tiktok',
  'youtube',
  'vimeo',
  'pinterest',
  'bluesky',
  'reddit',
] as const;
export type PlatformId = (typeof PLATFORM_IDS)[number];

/** How a channel option's value is sent (spec 2.1). */
export type OptionType = 'text' | 'url' | 'choice' | 'boolean' | 'list' | 'media';

export interface PlatformOption {
  key: string;
  type: OptionType;
  required: boolean;
  /** Allowed values for `choice` (and for the items of a `list` when the list is closed); null otherwise. */
  allowedValues: string[] | null;
  /** Longest accepted value for text/url options, or most items for list options; null when unbounded. */
  maxLength: number | null;
  description: string;
}

export interface PostType {
  key: string;
  name: string;
  description: string;
}

/** How the network counts text toward `maxLength`. */
export type TextCounting =
  /** X's weighted length (twitter-text): URLs count 23, most non-Latin characters 2. */
  | 'weighted'
  /** User-perceived characters (extended grapheme clusters). */
  | 'graphemes'
  /** Unicode code points, but every emoji counts as its UTF-8 byte length. */
  | 'codepoints_emoji_bytes'
  /** Unicode code points (not UTF-16 units). */
  | 'codepoints';

/** What the extra blocks of a post become on the network. */
export type Continuation = 'reply' | 'comment' | null;

/** The fields of a live post that the network lets us change after publication. */
export type RemoteEditField = 'text' | 'title' | 'options';

export interface PlatformLimits {
  /** Text limit per block, counted as `textCounting` says. */
  maxLength: number;
  textCounting: TextCounting;
  /** Also at most this many UTF-8 bytes of text per block (Bluesky: 3000); absent: no byte cap. */
  maxBytes?: number;
  /** 1 means no threads. */
  maxBlocks: number;
  /** Text limit of the later blocks where it is below `maxLength` (LinkedIn comments: 1,250); absent: `maxLength`. */
  continuationMaxLength?: number;
  /** true: the later blocks carry text only (Facebook, Instagram, Reddit comments); absent: they take media like the first. */
  continuationTextOnly?: boolean;
  /**
   * What the later blocks may carry where it is less than the first (LinkedIn comments: one image,
   * JPEG, PNG or GIF); absent: as the first block (or nothing with `continuationTextOnly`).
   */
  continuationMedia?: { maxMedia: number; acceptedMimeTypes: string[] };
  continuation: Continuation;
  /** null: the network has no title. */
  title: { required: boolean; maxLength: number } | null;
  options: PlatformOption[];
  /** null: no edits after publish; otherwise what may change. */
  remoteEdit: RemoteEditField[] | null;
  supportsRemoteDelete: boolean;
  acceptedMimeTypes: string[];
  /** Files per block. */
  maxMedia: number;
  /** The network's size cap per file type, in bytes, where it is below Herald's own; absent: none. */
  maxMediaBytes?: Record<string, number>;
  /** Types a block carries only alone (X: one GIF or one video, without other files); absent: none. */
  soleMediaTypes?: string[];
  /** true: at least one file is required (on the first block). */
  requiresMedia: boolean;
  /** Whether comments on a live post can be read and replied to. */
  commentsReadable: boolean;
  /** How far back comments can be read, in days; null when unbounded or unreadable. */
  commentsWindowDays: number | null;
  /**
   * What a reply to a comment may carry (`POST /posts/{id}/comments/{commentId}/replies`), its text
   * counted as `textCounting` says; null exactly where `commentsReadable` is false.
   */
  commentReplies: CommentReplyLimits | null;
}

/** The network's rules for a comment Herald writes in answer to another. */
export interface CommentReplyLimits {
  maxLength: number;
  /** Also at most this many UTF-8 bytes (Bluesky: 3000); absent: no byte cap. */
  maxBytes?: number;
  /** Files per reply; 0: text only. */
  maxMedia: number;
  acceptedMimeTypes: string[];
}

export interface Platform {
  id: PlatformId;
  name: string;
  /** The spec's word for the kind of network ("short-post network", ...). */
  kind: string;
  limits: PlatformLimits;
  /** Empty when the network has no special post types. */
  postTypes: PostType[];
  /** Whether the network reports engagement metrics we can read. */
  supportsMetrics: boolean;
}
