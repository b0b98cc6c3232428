import { describe, expect, it } from 'vitest';
import { postBody } from '../../functions/core/posts/schema.ts';
import { type ValidationContext, validatePost } from '../../functions/core/posts/validate.ts';
import { ApiError } from '../../functions/domain/errors.ts';
import { getPlatform } from '../../functions/domain/platforms/catalog.ts';
import type { MediaInfo } from '../../functions/domain/post.ts';
import { channelRecord } from '../support/fixtures.ts';

const MiB = 1024 * 1024;
const file = (mediaId: string, mimeType: string, size: number): MediaInfo => ({
  mediaId,
  mimeType,
  size,
  status: 'ready',
});
const MEDIA = [
  file('med_jpg', 'image/jpeg', 100_000),
  file('med_png', 'image/png', 200_000),
  file('med_big_png', 'image/png', 5 * MiB + 1),
  file('med_gif', 'image/gif', 14 * MiB),
  file('med_big_gif', 'image/gif', 15 * MiB + 1),
  file('med_mp4', 'video/mp4', 100 * MiB),
  file('med_mov', 'video/quicktime', 1_000),
];
const ctx: ValidationContext = {
  channels: new Map([['ch_x', channelRecord('ch_x', 'x')]]),
  media: new Map(MEDIA.map((m) => [m.mediaId, m])),
  tagIds: new Set(),
  now: new Date('2026-06-01T12:00:00.000Z'),
};
const validate = (mediaIds: string[]) => {
  const parsed = postBody.parse({
    intent: 'draft',
    channels: [{ channelId: 'ch_x', blocks: [{ content: 'hi', mediaIds }] }],
  });
  return validatePost(parsed, ctx);
};
const refusal = (mediaIds: string[]) => {
  try {
    validate(mediaIds);
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, field: error.field };
    throw error;
  }
  return null;
};

describe('what X accepts, from its rules (GET /platforms) and checked before saving', () => {
  it('publishes its size caps and the types that go alone', () => {
    const x = getPlatform('x');
    expect(x?.limits.maxMediaBytes).toMatchObject({
      'image/png': 5 * MiB,
      'image/gif': 15 * MiB,
      'video/mp4': 512 * MiB,
    });
    expect(x?.limits.soleMediaTypes).toEqual(['image/gif', 'video/mp4', 'video/quicktime']);
    expect(x?.limits.maxMedia).toBe(4);
  });

  it('takes up to 4 images, or one GIF, or one video', () => {
    expect(refusal(['med_jpg', 'med_png'])).toBeNull();
    expect(refusal(['med_gif'])).toBeNull();
    expect(refusal(['med_mp4'])).toBeNull();
    expect(refusal(['med_mov'])).toBeNull();
    expect(refusal(['med_mp4', 'med_jpg'])).toEqual({
      code: 'too_many_media',
      field: 'channels[0].blocks[0].mediaIds',
    });
    expect(refusal(['med_jpg', 'med_gif'])).toEqual({
      code: 'too_many_media',
      field: 'channels[0].blocks[0].mediaIds',
    });
  });

  it('refuses a file above X’s cap for its type', () => {
    expect(refusal(['med_big_png'])).toEqual({
      code: 'media_too_large',
      field: 'channels[0].blocks[0].mediaIds[0]',
    });
    expect(refusal(['med_jpg', 'med_big_gif'])).toEqual({
      code: 'media_too_large',
      field: 'channels[0].blocks[0].mediaIds[1]',
    });
  });
});
