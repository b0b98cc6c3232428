import type { Platform } from '../types.ts';

/**
 * Facebook Page (social network, page). Sources: spec section 8; Graph API POST /{page-id}/feed
 * (`message`, `link`), /{page-id}/video_reels (reels), /{page-id}/photo_stories and
 * /video_stories (stories: JPEG, PNG, GIF images; MP4 video); page videos also take MOV.
 */
export const platform: Platform = {
  id: 'facebook',
  name: 'Facebook',
  kind: 'social network, page',
  limits: {
    maxLength: 63206,
    textCounting: 'codepoints',
    maxBlocks: 3,
    continuation: 'comment',
    title: null,
    options: [
      {
        key: 'link',
        type: 'url',
        required: false,
        allowedValues: null,
        maxLength: 2048,
        description:
          'Web address shared with the post and shown as a link preview. Ignored when files are attached.',
      },
    ],
    remoteEdit: ['text'],
    supportsRemoteDelete: true,
    acceptedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'video/mp4', 'video/quicktime'],
    maxMedia: 10,
    requiresMedia: false,
    commentsReadable: true,
    commentsWindowDays: null,
  },
  postTypes: [
    { key: 'post', name: 'Post', description: 'A post on the Page timeline, with or without files.' },
    { key: 'reel', name: 'Reel', description: 'One vertical video published as a Facebook Reel.' },
    { key: 'story', name: 'Story', description: 'One image or video shown as a Page story for 24 hours.' },
  ],
  supportsMetrics: true,
};
