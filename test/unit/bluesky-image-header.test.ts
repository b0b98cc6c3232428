import { describe, expect, it } from 'vitest';
import { imageMimeType, imageSize } from '../../functions/platforms/bluesky/image-header.ts';
import { mediaFiles } from '../support/media-files.ts';

describe('image sizes from headers (Bluesky aspectRatio)', () => {
  it('reads PNG, GIF and WebP (lossless) headers', () => {
    expect(imageSize(mediaFiles.png())).toEqual({ width: 1, height: 1 });
    expect(imageSize(mediaFiles.gif())).toEqual({ width: 1, height: 1 });
    expect(imageSize(mediaFiles.webp())).toEqual({ width: 1, height: 1 });
    const gif = Buffer.from(mediaFiles.gif());
    gif.writeUInt16LE(300, 6);
    gif.writeUInt16LE(200, 8);
    expect(imageSize(gif)).toEqual({ width: 300, height: 200 });
  });

  it('reads a JPEG frame header after other segments, and WebP lossy and extended headers', () => {
    const jpeg = Buffer.from([
      0xff,
      0xd8,
      0xff,
      0xe1,
      0,
      4,
      1,
      2,
      0xff,
      0xc2,
      0,
      17,
      8,
      0x01,
      0x00,
      0x02,
      0x00,
      3,
      ...Array(9).fill(0),
    ]);
    expect(imageSize(jpeg)).toEqual({ width: 512, height: 256 });
    const lossy = Buffer.alloc(30);
    lossy.write('RIFF', 0, 'latin1');
    lossy.write('WEBPVP8 ', 8, 'latin1');
    lossy.set([0x9d, 0x01, 0x2a], 23);
    lossy.writeUInt16LE(800, 26);
    lossy.writeUInt16LE(600, 28);
    expect(imageSize(lossy)).toEqual({ width: 800, height: 600 });
    const extended = Buffer.alloc(30);
    extended.write('RIFF', 0, 'latin1');
    extended.write('WEBPVP8X', 8, 'latin1');
    extended.writeUIntLE(1919, 24, 3);
    extended.writeUIntLE(1079, 27, 3);
    expect(imageSize(extended)).toEqual({ width: 1920, height: 1080 });
  });

  it('answers null for what it cannot read, and sniffs image types', () => {
    expect(imageSize(mediaFiles.jpeg())).toBeNull(); // no frame header before the end of image
    expect(imageSize(mediaFiles.pdf())).toBeNull();
    expect(imageSize(Buffer.from([0x89, 0x50]))).toBeNull();
    expect(imageMimeType(mediaFiles.png())).toBe('image/png');
    expect(imageMimeType(mediaFiles.jpeg())).toBe('image/jpeg');
    expect(imageMimeType(mediaFiles.webp())).toBe('image/webp');
    expect(imageMimeType(mediaFiles.mp4())).toBeNull();
  });
});
