import type { ContainerStatus, MediaType } from './limits.ts';

export interface Container {
  id: string;
  userId: string;
  mediaType: MediaType;
  text: string;
  url: string | null;
  altText: string | null;
  isCarouselItem: boolean;
  children: string[];
  replyToId: string | null;
  replyControl: string;
  linkAttachment: string | null;
  status: ContainerStatus;
  errorMessage: string | null;
  /** When the processing ends (FINISHED unless the fetch failed). */
  readyAt: number;
  expiresAt: number;
  /** What Threads fetched from `image_url` / `video_url`. */
  fetched: { bytes: number; contentType: string | null } | null;
  publishedId: string | null;
}

/** One attachment of a post as the inspection route shows it. */
export interface SimThreadsMedia {
  type: 'IMAGE' | 'VIDEO';
  url: string;
  altText: string | null;
  bytes: number;
  contentType: string | null;
  containerId: string;
}

export interface SimThreadsPost {
  id: string;
  userId: string;
  text: string;
  mediaType: 'TEXT_POST' | 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM';
  timestamp: string;
  permalink: string;
  shortcode: string;
  replyToId: string | null;
  rootId: string | null;
  replyControl: string;
  linkAttachment: string | null;
  containerId: string;
  media: SimThreadsMedia[];
  deleted: boolean;
}
