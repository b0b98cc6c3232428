import type { Platform } from '../types.ts';
import { linkedinPostLimits } from './linkedin-posts.ts';

/**
 * LinkedIn member profile (professional network, profile). Sources: spec section 8; LinkedIn
 * Posts API (`visibility`: PUBLIC, CONNECTIONS, LOGGED_IN); Images API (JPG, PNG, GIF), Videos
 * API (MP4) and Documents API (PDF). A PDF attachment becomes a document post, so no post type.
 * Up to 20 images go as one multi-image post; a video or a document goes alone. Later blocks are
 * comments, which take one image each (Comments API `content: [{ entity: { image } }]`). What a
 * post takes is shared with the page (`linkedinPostLimits`); a profile's comments are not read.
 */
export const platform: Platform = {
  id: 'linkedin',
  name: 'LinkedIn',
  kind: 'professional network, profile',
  limits: linkedinPostLimits(
    {
      allowedValues: ['PUBLIC', 'CONNECTIONS', 'LOGGED_IN'],
      description:
        'Who can see the post: anyone (PUBLIC, the default), your first-degree connections (CONNECTIONS) or signed-in LinkedIn members (LOGGED_IN).',
    },
    false,
  ),
  postTypes: [],
  supportsMetrics: true,
};
