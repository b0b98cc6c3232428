/** Threads' documented limits and enumerations. */
export const TEXT_LIMIT = 500;
export const ALT_TEXT_LIMIT = 1000;
export const CAROUSEL_MIN = 2;
export const CAROUSEL_MAX = 20;
export const WINDOW_MS = 86_400_000;
export const REPLY_CONTROLS = [
  'everyone',
  'accounts_you_follow',
  'mentioned_only',
  'parent_post_author_only',
  'followers_only',
];
export const MEDIA_TYPES = ['TEXT', 'IMAGE', 'VIDEO', 'CAROUSEL'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
export type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';
