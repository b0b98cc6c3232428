import type { LinkedInMediaOptions } from './media.ts';
import type { linkedInOAuthSimulator } from './oauth.ts';

/** A comment's media, as LinkedIn keeps it: one image entity. */
export type SimCommentContent = { entity: { image: string } }[];

export interface StoredComment {
  id: string;
  urn: string;
  actor: string;
  text: string;
  createdAt: number;
  deleted: boolean;
  content: SimCommentContent | null;
  /**
   * The comment it answers (a nested comment), null for a comment on the post. LinkedIn nests one
   * level: a nested comment's parent is always a comment on the post.
   */
  parentUrn: string | null;
  /** Hidden by the page's owner (or LinkedIn): absent from every read, as if deleted. */
  hidden: boolean;
}

export interface StoredPost {
  urn: string;
  /** The activity behind the post: comments name it in their URN (`urn:li:comment:(urn:li:activity:…,id)`). */
  activityUrn: string;
  author: string;
  commentary: string;
  text: string;
  visibility: string;
  createdAt: number;
  deleted: boolean;
  comments: Map<string, StoredComment>;
  /** `content` as LinkedIn keeps it: one file (`media`) or several images (`multiImage`). */
  content: SimPostContent | null;
}

export type SimPostContent =
  | { media: { id: string; altText?: string; title?: string } }
  | { multiImage: { images: { id: string; altText?: string }[] } };

export interface LinkedInSimulatorOptions {
  port?: number;
  holdMs?: number;
  /** OAuth endpoints and token lifetimes (linkedin/oauth-simulator.ts). */
  oauth?: Parameters<typeof linkedInOAuthSimulator>[0];
  /** The clock that decides which `LinkedIn-Version`s are live (default: the system clock). */
  now?: () => Date;
  /** Images, Videos and Documents APIs (linkedin/media-simulator.ts). */
  media?: LinkedInMediaOptions;
}
