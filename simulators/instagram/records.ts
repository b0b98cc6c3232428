export type ContainerKind = 'IMAGE' | 'VIDEO' | 'REELS' | 'STORIES' | 'CAROUSEL';
export type StatusCode = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';

export interface SimAttachment {
  kind: 'image' | 'video';
  url: string;
  /** Bytes Instagram fetched from the URL. */
  size: number;
  altText: string | null;
}

export interface Container {
  id: string;
  account: string;
  kind: ContainerKind;
  carouselItem: boolean;
  caption: string;
  attachment: SimAttachment | null;
  children: string[];
  collaborators: string[];
  locationId: string | null;
  shareToFeed: boolean | null;
  createdAt: number;
  readyAt: number;
  /** Set when processing failed: Instagram's reason, with its subcode. */
  error: { message: string; subcode: number } | null;
  /** True until a video's bytes were fetched. */
  fetching: boolean;
  expired: boolean;
  publishedAs: string | null;
}

export interface SimComment {
  id: string;
  mediaId: string;
  /** The commenter's id (`from.id`): the account itself for its own comments and replies. */
  account: string;
  /** The commenter's username (`username`, `from.username`). */
  username: string;
  /** The top-level comment a reply is under (Instagram nests one level only); null on the media. */
  parentId: string | null;
  text: string;
  createdAt: number;
  deleted: boolean;
  /** Hidden by the media's owner: still returned to the owner, with `hidden: true`. */
  hidden: boolean;
}

export interface SimMedia {
  id: string;
  account: string;
  containerId: string;
  productType: 'FEED' | 'REELS' | 'STORY';
  mediaType: 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM';
  caption: string;
  shortcode: string;
  attachments: SimAttachment[];
  collaborators: string[];
  locationId: string | null;
  /** Reels: also shown in the feed (Instagram's default: true). */
  shareToFeed: boolean | null;
  createdAt: number;
  comments: SimComment[];
}
