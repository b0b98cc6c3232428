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
  ...Array.from({ length: 21 }, (_, i) => file(`med_img${i}`, 'image/jpeg', 100_000)),
  file('med_mp4', 'video/mp4', 50 * MiB),
  file('med_pdf', 'application/pdf', 2 * MiB),
  file('med_big_pdf', 'application/pdf', 100 * MiB + 1),
];
const images = (n: number) => Array.from({ length: n }, (_, i) => `med_img${i}`);

describe.each(['linkedin', 'linkedin_page'] as const)(
  'what %s accepts (GET /platforms), checked before saving',
  (id) => {
    const ctx: ValidationContext = {
      channels: new Map([['ch_li', channelRecord('ch_li', id)]]),
      media: new Map(MEDIA.map((m) => [m.mediaId, m])),
      tagIds: new Set(),
      now: new Date('2026-06-01T12:00:00.000Z'),
    };
    const refusal = (mediaIds: string[]) => {
      try {
        validatePost(
          postBody.parse({
            intent: 'draft',
            channels: [{ channelId: 'ch_li', blocks: [{ content: 'hi', mediaIds }] }],
          }),
          ctx,
        );
      } catch (error) {
        if (error instanceof ApiError) return error.code;
        throw error;
      }
      return null;
    };

    it('publishes 20 images, or one video or one document, and the PDF cap', () => {
      const limits = getPlatform(id)?.limits;
      expect(limits?.maxMedia).toBe(20);
      expect(limits?.soleMediaTypes).toEqual(['video/mp4', 'application/pdf']);
      expect(limits?.maxMediaBytes).toEqual({ 'application/pdf': 100 * MiB });
      expect(limits?.acceptedMimeTypes).toEqual([
        'image/jpeg',
        'image/png',
        'image/gif',
        'video/mp4',
        'application/pdf',
      ]);
    });

    it('holds the comments (later blocks) to 1,250 characters and one image each, before the first block goes out', () => {
      const limits = getPlatform(id)?.limits;
      expect(limits?.continuationMaxLength).toBe(1250);
      expect(limits?.continuationTextOnly).toBeUndefined();
      expect(limits?.continuationMedia).toEqual({
        maxMedia: 1,
        acceptedMimeTypes: ['image/jpeg', 'image/png', 'image/gif'],
      });
      const thread = (blocks: { content: string; mediaIds?: string[] }[]) => {
        try {
          validatePost(postBody.parse({ intent: 'draft', channels: [{ channelId: 'ch_li', blocks }] }), ctx);
        } catch (error) {
          if (error instanceof ApiError)
            return { code: error.code, field: error.field, message: error.message };
          throw error;
        }
        return null;
      };
      expect(thread([{ content: 'a'.repeat(3000) }, { content: 'b'.repeat(1250) }])).toBeNull();
      expect(thread([{ content: 'a' }, { content: 'b'.repeat(1251) }])).toEqual({
        code: 'content_too_long',
        field: 'channels[0].blocks[1].content',
        message: expect.stringContaining('1250'),
      });
      // One image on a later block (the comment's image); an image alone is a comment too.
      expect(thread([{ content: 'a' }, { content: 'b', mediaIds: ['med_img0'] }])).toBeNull();
      expect(
        thread([{ content: 'a' }, { content: '', mediaIds: ['med_img0'] }, { content: 'c' }]),
      ).toBeNull();
      expect(thread([{ content: 'a' }, { content: 'b', mediaIds: ['med_img0', 'med_img1'] }])).toEqual({
        code: 'too_many_media',
        field: 'channels[0].blocks[1].mediaIds',
        message: expect.stringMatching(/at most 1 file; 2 were sent/),
      });
      expect(thread([{ content: 'a' }, { content: 'b', mediaIds: ['med_mp4'] }])).toEqual({
        code: 'media_type_not_accepted',
        field: 'channels[0].blocks[1].mediaIds[0]',
        message: expect.stringMatching(
          /comments \(the blocks after the first\) take image\/jpeg, image\/png, image\/gif only; med_mp4 is video\/mp4/,
        ),
      });
      expect(thread([{ content: 'a' }, { content: 'b', mediaIds: ['med_pdf'] }])).toMatchObject({
        code: 'media_type_not_accepted',
      });
    });

    it('refuses a video or a document with other files, more than 20 images, and a PDF over 100 MB', () => {
      expect(refusal(images(20))).toBeNull();
      expect(refusal(['med_mp4'])).toBeNull();
      expect(refusal(['med_pdf'])).toBeNull();
      expect(refusal(images(21))).not.toBeNull();
      expect(refusal(['med_img0', 'med_mp4'])).not.toBeNull();
      expect(refusal(['med_pdf', 'med_img0'])).not.toBeNull();
      expect(refusal(['med_big_pdf'])).not.toBeNull();
    });
  },
);
