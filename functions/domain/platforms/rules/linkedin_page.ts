import type { Platform } from '../types.ts';
import { linkedinPostLimits } from './linkedin-posts.ts';

/**
 * LinkedIn organization page (professional network, page). Sources: spec section 8; LinkedIn
 * Posts API (`visibility`; CONNECTIONS applies to member authors only, so a page has PUBLIC and
 * LOGGED_IN); Images API (JPG, PNG, GIF), Videos API (MP4), Documents API (PDF). Up to 20 images
 * go as one multi-image post; a video or a document goes alone, on the first block only. Later
 * blocks are comments, which take one image each (Comments API). What a post takes is shared with
 * the profile (`linkedinPostLimits`); a page's comments can be read.
 */
export const platform: Platform = {
  id: 'linkedin_page',
  name: 'LinkedIn Page',
  kind: 'professional network, page',
  limits: linkedinPostLimits(
    {
      allowedValues: ['PUBLIC', 'LOGGED_IN'],
      description:
        'Who can see the post: anyone (PUBLIC, the default) or signed-in LinkedIn members only (LOGGED_IN).',
    },
    true,
  ),
  postTypes: [],
  supportsMetrics: true,
};
