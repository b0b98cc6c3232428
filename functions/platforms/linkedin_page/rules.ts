import type { Platform } from '../types.ts';

/**
 * LinkedIn organization page (professional network, page). Sources: spec section 8; LinkedIn
 * Posts API (`visibility`; CONNECTIONS applies to member authors only, so a page has PUBLIC and
 * LOGGED_IN); Images API (JPG, PNG, GIF), Videos API (MP4), Documents API (PDF).
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
    requiresMedia: false,
    commentsReadable: true,
    commentsWindowDays: null,
  },
  postTypes: [],
  supportsMetrics: true,
};
