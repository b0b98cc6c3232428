import { randomBytes } from 'node:crypto';

export interface SimRedditAsset {
  assetId: string;
  account: string;
  filepath: string;
  mimetype: string;
  key: string;
  /** Bytes received by the S3 slot; null until uploaded. */
  uploadedBytes: number | null;
  /** The S3 location a submit uses; null until uploaded. */
  location: string | null;
}

export interface SimRedditComment {
  id: string;
  name: string;
  author: string;
  linkId: string;
  /** What it answers: the post (`t3_…`, = linkId) or a comment (`t1_…`). */
  parentId: string;
  body: string;
  createdUtc: number;
  deleted: boolean;
  /** Removed by the subreddit's moderators (the `hidden` comment state): listed as `[removed]`. */
  removed: boolean;
  /** Points (Reddit counts the author's own upvote: 1 at first). */
  score: number;
}

export interface SimRedditPost {
  id: string;
  name: string;
  author: string;
  subreddit: string;
  kind: 'self' | 'link' | 'image' | 'video' | 'videogif' | 'gallery';
  title: string;
  /** The body as listings show it: a media post's as Reddit re-renders it (see `storedMarkdown`). */
  selftext: string;
  /** The body as the submit sent it. */
  sentText: string;
  url: string;
  flairId: string | null;
  flairText: string | null;
  nsfw: boolean;
  spoiler: boolean;
  sendReplies: boolean;
  createdUtc: number;
  /** When the post shows in listings (media posts: after processing); null: never (processing failed). */
  visibleAt: number | null;
  deleted: boolean;
  /** The assets the post was made with (media posts). */
  assetIds: string[];
  videoPosterUrl: string | null;
  /** A gallery's captions, by asset (Reddit's alt text for gallery images). */
  captions: Record<string, string>;
  comments: SimRedditComment[];
}

/**
 * A media post's body as Reddit stores it: Reddit keeps an image or video post's body as rich
 * text and renders `selftext` back from it, so the markdown listings show is not the markdown
 * sent. Modelled here: bare links become `[url](url)`, a single line break a paragraph break,
 * trailing spaces are dropped (illustrative of the re-rendering, not a copy of Reddit's renderer).
 * A client that matches the listing against the sent text byte for byte never finds the post.
 */
export const storedMarkdown = (text: string): string =>
  text
    .replace(/\r\n?/g, '\n')
    .replace(
      /(^|[^\](])(https?:\/\/[^\s<>()[\]]+)/g,
      (_m, pre: string, url: string) => `${pre}[${url}](${url})`,
    )
    .replace(/([^\n])\n(?!\n)/g, '$1\n\n')
    .replace(/[ \t]+$/gm, '')
    .trim();

export const base36 = () =>
  BigInt(`0x${randomBytes(5).toString('hex')}`)
    .toString(36)
    .padStart(7, '0')
    .slice(0, 7);

export const truthy = (value: string | undefined) => value === 'true' || value === '1' || value === 'on';

export const permalinkOf = (post: SimRedditPost) =>
  `/r/${post.subreddit}/comments/${post.id}/${post.title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 50)}/`;
