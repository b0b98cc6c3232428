import type { Platform } from '../types.ts';

/**
 * YouTube (video network), published by youtube/client.ts. Sources: spec section 8; YouTube Data API v3 videos.insert
 * (`snippet.title` up to 100 characters, `snippet.description` up to 5000, `snippet.tags`,
 * `snippet.categoryId`, `status.privacyStatus` public / unlisted / private,
 * `status.selfDeclaredMadeForKids`), thumbnails.set (JPEG or PNG), captions.insert (caption files).
 * No post types: the API has no Shorts switch; a video becomes a Short from its shape and length.
 */
export const platform: Platform = {
  id: 'youtube',
  name: 'YouTube',
  kind: 'video network',
  limits: {
    maxLength: 5000,
    textCounting: 'codepoints',
    maxBlocks: 1,
    continuation: null,
    title: { required: true, maxLength: 100 },
    options: [
      {
        key: 'privacy',
        type: 'choice',
        required: false,
        allowedValues: ['public', 'unlisted', 'private'],
        maxLength: null,
        description: 'Who can watch the video: everyone, anyone with the link, or only you. Default public.',
      },
      {
        key: 'madeForKids',
        type: 'boolean',
        required: false,
        allowedValues: null,
        maxLength: null,
        description: 'Declares the video as made for children (COPPA). Default false.',
      },
      {
        key: 'tags',
        type: 'list',
        required: false,
        allowedValues: null,
        maxLength: null,
        description: 'Keywords for search. YouTube allows about 500 characters of tags in total.',
      },
      {
        key: 'categoryId',
        type: 'text',
        required: false,
        allowedValues: null,
        maxLength: null,
        description: 'YouTube video category id, for example "22" (People & Blogs, the default).',
      },
      {
        key: 'thumbnail',
        type: 'media',
        required: false,
        allowedValues: null,
        maxLength: null,
        description:
          'Id of an uploaded JPEG or PNG image (at most 2 MB) set as the custom thumbnail after the upload (thumbnails.set; YouTube allows custom thumbnails on verified channels only: a refusal is noted on the block, the video stays).',
      },
      {
        key: 'captionLanguage',
        type: 'text',
        required: false,
        allowedValues: null,
        maxLength: 35,
        description:
          'BCP-47 language of the subtitle files (VTT, SRT) sent with the video as caption tracks, for example "en" or "pt-BR". Default "en". A subtitle file whose alt text starts with a language tag and a colon ("fr: Français") takes that language and the rest as the track name.',
      },
    ],
    remoteEdit: ['text', 'title', 'options'],
    supportsRemoteDelete: true,
    acceptedMimeTypes: ['video/mp4', 'video/quicktime', 'text/vtt', 'application/x-subrip'],
    maxMedia: 1,
    requiresMedia: true,
    commentsReadable: true,
    commentsWindowDays: null,
    // `comments.insert` with `snippet.textOriginal`: 10,000 characters, text only.
    commentReplies: { maxLength: 10000, maxMedia: 0, acceptedMimeTypes: [] },
  },
  postTypes: [],
  supportsMetrics: true,
};
