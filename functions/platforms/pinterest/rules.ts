import type { Platform } from '../types.ts';

/**
 * Pinterest (pin-board network). Sources: spec section 8; Pinterest API v5 POST /v5/pins
 * (`board_id` required, `title` up to 100 characters, `description` up to 800, `link` up to 2048,
 * `alt_text` up to 500, video `media_source` with a cover image); images BMP/JPEG/PNG/TIFF/GIF/WebP,
 * video MP4/MOV/M4V. Several images make a carousel pin.
 */
export const platform: Platform = {
  id: 'pinterest',
  name: 'Pinterest',
  kind: 'pin-board network',
  limits: {
    maxLength: 800,
    textCounting: 'codepoints',
    maxBlocks: 1,
    continuation: null,
    title: { required: false, maxLength: 100 },
    options: [
      {
        key: 'boardId',
        type: 'text',
        required: true,
        allowedValues: null,
        maxLength: null,
        description: 'Id of the board the pin is saved to.',
      },
      {
        key: 'link',
        type: 'url',
        required: false,
        allowedValues: null,
        maxLength: 2048,
        description: 'Web address people reach when they click the pin.',
      },
      {
        key: 'altText',
        type: 'text',
        required: false,
        allowedValues: null,
        maxLength: 500,
        description: 'Description of the pin image for screen readers.',
      },
      {
        key: 'coverImage',
        type: 'media',
        required: false,
        allowedValues: null,
        maxLength: null,
        description: 'Video pins: id of an uploaded image shown before the video plays.',
      },
    ],
    remoteEdit: ['text', 'title', 'options'],
    supportsRemoteDelete: true,
    acceptedMimeTypes: ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'video/mp4', 'video/quicktime'],
    maxMedia: 5,
    requiresMedia: true,
    commentsReadable: false,
    commentsWindowDays: null,
  },
  postTypes: [],
  supportsMetrics: true,
};
