import type { Platform } from '../types.ts';

/**
 * TikTok (short-video network). Sources: spec section 8 (one video); TikTok Content Posting API
 * POST /v2/post/publish/video/init/ `post_info` (`privacy_level`: PUBLIC_TO_EVERYONE,
 * MUTUAL_FOLLOW_FRIENDS, FOLLOWER_OF_CREATOR, SELF_ONLY, required and limited to the values that
 * creator_info/query returns for the account; `disable_comment`, `disable_duet`, `disable_stitch`).
 * The client (client.ts) checks the options against creator_info before the init; TikTok has no
 * edit or delete of a posted video.
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
          "Who can watch the video: one of the levels the account offers at publication (TikTok's creator_info; a private account has no PUBLIC_TO_EVERYONE, and an app TikTok has not audited may post SELF_ONLY only). Another level fails the channel before any upload.",
      },
      {
        key: 'disableComment',
        type: 'boolean',
        required: false,
        allowedValues: null,
        maxLength: null,
        description:
          'Turn comments off for this video. Unset: as the creator\'s TikTok settings have it; "false" fails the channel when the creator turned comments off.',
      },
      {
        key: 'disableDuet',
        type: 'boolean',
        required: false,
        allowedValues: null,
        maxLength: null,
        description:
          'Stop others from making duets with this video. Unset: as the creator\'s TikTok settings have it; "false" fails the channel when the creator turned duets off.',
      },
      {
        key: 'disableStitch',
        type: 'boolean',
        required: false,
        allowedValues: null,
        maxLength: null,
        description:
          'Stop others from stitching this video. Unset: as the creator\'s TikTok settings have it; "false" fails the channel when the creator turned stitches off.',
      },
    ],
    remoteEdit: null,
    supportsRemoteDelete: false,
    acceptedMimeTypes: ['video/mp4', 'video/quicktime'],
    maxMedia: 1,
    requiresMedia: true,
    commentsReadable: false,
    commentsWindowDays: null,
    commentReplies: null,
  },
  postTypes: [],
  supportsMetrics: true,
};
