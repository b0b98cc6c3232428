import type { Platform } from '../types.ts';

/**
 * TikTok (short-video network). Sources: spec section 8 (one video); TikTok Content Posting API
 * POST /v2/post/publish/video/init/ `post_info` (`privacy_level`: PUBLIC_TO_EVERYONE,
 * MUTUAL_FOLLOW_FRIENDS, FOLLOWER_OF_CREATOR, SELF_ONLY, required and limited to the values that
 * creator_info/query returns for the account; `disable_comment`, `disable_duet`, `disable_stitch`).
 */
export const platform: Platform = {
  id: 'tiktok',
  name: 'TikTok',
  kind: 'short-video network',
  limits: {
    maxLength: 2200,
    textCounting: 'codepoints',
    maxBlocks: 1,
    continuation: null,
    title: null,
    options: [
      {
        key: 'privacy',
        type: 'choice',
        required: true,
        allowedValues: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'],
        maxLength: null,
        description:
          'Who can watch the video. The account may offer only some of these values (a private account has no PUBLIC_TO_EVERYONE).',
      },
      {
        key: 'disableComment',
        type: 'boolean',
        required: false,
        allowedValues: null,
        maxLength: null,
        description: 'Turn comments off for this video. Default false.',
      },
      {
        key: 'disableDuet',
        type: 'boolean',
        required: false,
        allowedValues: null,
        maxLength: null,
        description: 'Stop others from making duets with this video. Default false.',
      },
      {
        key: 'disableStitch',
        type: 'boolean',
        required: false,
        allowedValues: null,
        maxLength: null,
        description: 'Stop others from stitching this video. Default false.',
      },
    ],
    remoteEdit: null,
    supportsRemoteDelete: false,
    acceptedMimeTypes: ['video/mp4', 'video/quicktime'],
    maxMedia: 1,
    requiresMedia: true,
    commentsReadable: false,
    commentsWindowDays: null,
  },
  postTypes: [],
  supportsMetrics: true,
};
