import type { Platform } from '../types.ts';

/**
 * LinkedIn member profile (professional network, profile). Sources: spec section 8; LinkedIn
 * Posts API (`visibility`: PUBLIC, CONNECTIONS, LOGGED_IN); Images API (JPG, PNG, GIF), Videos
 * API (MP4) and Documents API (PDF). A PDF attachment becomes a document post, so no post type.
 */
export const platform: Platform = {
  id: 'linkedin',
  name: 'LinkedIn',
  kind: 'professional network, profile',
  limits: {
    maxLength: 3000,
    textCounting: 'codepoints',
    maxBlocks: 3,
    continuation: 'comment',
    title: null,
    options: [
      {
        key: 'visibility',
        type: 'choice',
        required: false,
        allowedValues: ['PUBLIC', 'CONNECTIONS', 'LOGGED_IN'],
        maxLength: null,
        description:
          'Who can see the post: anyone (PUBLIC, the default), your first-degree connections (CONNECTIONS) or signed-in LinkedIn members (LOGGED_IN).',
      },
    ],
    remoteEdit: ['text'],
    supportsRemoteDelete: true,
    acceptedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'video/mp4', 'application/pdf'],
    maxMedia: 20,
    requiresMedia: false,
    commentsReadable: false,
    commentsWindowDays: null,
  },
  postTypes: [],
  supportsMetrics: true,
};
