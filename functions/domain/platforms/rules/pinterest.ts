import type { Platform } from '../types.ts';

/**
 * Pinterest (pin-board network). Sources: spec section 8; Pinterest API v5 POST /v5/pins
 * (`board_id` required, `title` up to 100 characters, `description` up to 800, `link` up to 2048,
 * `alt_text` up to 500, video `media_source` with a cover image); images BMP/JPEG/PNG/TIFF/GIF/WebP,
 * video MP4/MOV/M4V. Several images (2 to 5) make a carousel pin; a video pin has one video and
 * nothing else. Edits (`PATCH /v5/pins/{id}`) change the description, title, link, alt text and
 * board; deletes are `DELETE /v5/pins/{id}`.
 */
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'];
/** Pinterest's image pins take files up to 20 MB. */
export const PINTEREST_IMAGE_MAX_BYTES = 20_000_000;

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
        description:
          'Video pins: id of an uploaded image shown before the video plays (else the first frame); set when the pin is made, edits keep it.',
      },
    ],
    remoteEdit: ['text', 'title', 'options'],
    supportsRemoteDelete: true,
    acceptedMimeTypes: [...IMAGE_TYPES, 'video/mp4', 'video/quicktime'],
    // One image, a carousel of 2 to 5 images (multiple_image_urls), or one video alone.
    maxMedia: 5,
    maxMediaBytes: Object.fromEntries(IMAGE_TYPES.map((type) => [type, PINTEREST_IMAGE_MAX_BYTES])),
    soleMediaTypes: ['video/mp4', 'video/quicktime'],
    requiresMedia: true,
    commentsReadable: false,
    commentsWindowDays: null,
    commentReplies: null,
  },
  postTypes: [],
  supportsMetrics: true,
};
