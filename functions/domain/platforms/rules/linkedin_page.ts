import type { Platform } from '../types.ts';

/**
 * LinkedIn organization page (professional network, page). Sources: spec section 8; LinkedIn
 * Posts API (`visibility`; CONNECTIONS applies to member authors only, so a page has PUBLIC and
 * LOGGED_IN); Images API (JPG, PNG, GIF), Videos API (MP4), Documents API (PDF). Up to 20 images
 * go as one multi-image post; a video or a document goes alone, on the first block only. Later
 * blocks are comments, which take one image each (Comments API).
 */
export const platform: Platform = {
  id: 'linkedin_page',
  name: 'LinkedIn Page',
  kind: 'professional network, page',
  limits: {
    maxLength: 3000,
    textCounting: 'codepoints',
    maxBlocks: 3,
    continuation: 'comment',
    // Comments (the later blocks) take 1,250 characters and one image (Comments API `content`).
    continuationMaxLength: 1250,
    continuationMedia: { maxMedia: 1, acceptedMimeTypes: ['image/jpeg', 'image/png', 'image/gif'] },
    title: null,
    options: [
      {
        key: 'visibility',
        type: 'choice',
        required: false,
        allowedValues: ['PUBLIC', 'LOGGED_IN'],
        maxLength: null,
        description:
          'Who can see the post: anyone (PUBLIC, the default) or signed-in LinkedIn members only (LOGGED_IN).',
      },
    ],
    remoteEdit: ['text'],
    supportsRemoteDelete: true,
    acceptedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'video/mp4', 'application/pdf'],
    maxMedia: 20,
    // Documents API: PDFs up to 100 MB (and 300 pages).
    maxMediaBytes: { 'application/pdf': 100 * 1024 * 1024 },
    // A post carries up to 20 images (multiImage), or one video, or one document.
    soleMediaTypes: ['video/mp4', 'application/pdf'],
    requiresMedia: false,
    commentsReadable: true,
    commentsWindowDays: null,
  },
  postTypes: [],
  supportsMetrics: true,
};
