import type { Platform } from '../types.ts';

/**
 * Vimeo (video hosting network). Sources: spec section 8; Vimeo API POST /me/videos (`name` up
 * to 128 characters, `description`, `privacy.view`: anybody, nobody, unlisted, password, users,
 * disable; `password`), text tracks (WebVTT / SRT caption files). What the client (client.ts)
 * does with them: the title is the video's name, the text its description, `privacy` is sent as
 * `privacy.view` only when set (else the account's default), `password` with it; one video per
 * post, its subtitle files become text tracks; edits change the description (and name and
 * privacy where given); a deleted video is gone from Vimeo.
 */
export const platform: Platform = {
  id: 'vimeo',
  name: 'Vimeo',
  kind: 'video hosting network',
  limits: {
    maxLength: 5000,
    textCounting: 'codepoints',
    maxBlocks: 1,
    continuation: null,
    title: { required: true, maxLength: 128 },
    options: [
      {
        key: 'privacy',
        type: 'choice',
        required: false,
        allowedValues: ['anybody', 'nobody', 'unlisted', 'password', 'users', 'disable'],
        maxLength: null,
        description:
          'Who can watch the video: anybody, only you (nobody), anyone with the link (unlisted), anyone with the password, Vimeo members (users), or only where embedded (disable). Default: the account setting.',
      },
      {
        key: 'password',
        type: 'text',
        required: false,
        allowedValues: null,
        maxLength: null,
        description: 'Password viewers must enter. Needed when privacy is password.',
      },
    ],
    remoteEdit: ['text', 'title', 'options'],
    supportsRemoteDelete: true,
    acceptedMimeTypes: ['video/mp4', 'video/quicktime', 'text/vtt', 'application/x-subrip'],
    maxMedia: 1,
    requiresMedia: true,
    commentsReadable: false,
    commentsWindowDays: null,
    commentReplies: null,
  },
  postTypes: [],
  supportsMetrics: true,
};
