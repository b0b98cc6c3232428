export interface SimFacebookMedia {
  id: string;
  kind: 'photo' | 'video';
  /** What it was uploaded for: a feed post (`/photos`, `/videos`), a reel or a story. */
  product: 'feed' | 'reel' | 'story';
  pageId: string;
  /** The URL the simulator downloaded it from. */
  sourceUrl: string;
  size: number;
  contentType: string;
  altText: string | null;
  published: boolean;
  /** The post it is attached to, once attached. */
  postId: string | null;
  /**
   * Videos: reels and stories are `uploading` until their bytes arrived, then `uploaded` (Graph's
   * `upload_complete`, processing `not_started`) until `upload_phase=finish` starts processing;
   * feed videos process from their download. Then `processing`, `ready` or `error`.
   */
  status: 'uploading' | 'uploaded' | 'processing' | 'ready' | 'error' | null;
  error: string | null;
}

export interface StoredComment {
  id: string;
  postId: string;
  /** The comment it answers (a reply); null on the post. */
  parentId: string | null;
  /** Who wrote it: a person (`from`), or null for the page itself. */
  author: { id: string; name: string } | null;
  message: string;
  createdAt: number;
  deleted: boolean;
  /** Hidden by the page: still returned to the page, with `is_hidden: true`. */
  hidden: boolean;
}

export interface StoredPost {
  id: string;
  pageId: string;
  message: string;
  link: string | null;
  createdAt: number;
  deleted: boolean;
  /** A video post while its video processes; failed when processing failed. */
  state: 'live' | 'processing' | 'failed';
  /** Stories are not among the page's posts (`GET /{page}/stories` lists them). */
  type: 'post' | 'reel' | 'story';
  attachments: string[];
  comments: string[];
}
