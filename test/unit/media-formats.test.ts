import { describe, expect, it } from 'vitest';
import {
  cleanFileName,
  fileNameAgrees,
  formatOf,
  formatOfMimeType,
  MAX_DIRECT_UPLOAD_BYTES,
  mimeTypeAgrees,
} from '../../functions/core/media/formats.ts';
import { sniffMediaFormat } from '../../functions/core/media/sniff.ts';
import { mediaFiles } from '../support/media-files.ts';

const sniff = async (bytes: Uint8Array) => (await sniffMediaFormat(bytes))?.mimeType;

describe('reading the real type from the bytes', () => {
  it.each([
    ['jpeg', 'image/jpeg'],
    ['png', 'image/png'],
    ['gif', 'image/gif'],
    ['webp', 'image/webp'],
    ['mp4', 'video/mp4'],
    ['mov', 'video/quicktime'],
    ['pdf', 'application/pdf'],
    ['vtt', 'text/vtt'],
    ['srt', 'application/x-subrip'],
  ] as const)('recognises %s', async (kind, mimeType) => {
    expect(await sniff(mediaFiles[kind]())).toBe(mimeType);
  });

  it('recognises subtitles by their shape: BOM, CRLF, leading blank lines, a WEBVTT header with text', async () => {
    expect(await sniff(Buffer.from('WEBVTT - captions\r\n\r\n00:01.000 --> 00:02.000\r\nHi\r\n'))).toBe(
      'text/vtt',
    );
    expect(await sniff(Buffer.from('\n\n12\n01:02:03.456 --> 01:02:04,000 X1:10\nHi\n'))).toBe(
      'application/x-subrip',
    );
  });

  it('refuses what only looks close', async () => {
    expect(await sniff(Buffer.from('WEBVTTX\n'))).toBeUndefined();
    expect(await sniff(Buffer.from('1\nHello, no timing here\n'))).toBeUndefined();
    expect(await sniff(Buffer.from('one\n00:00:00,000 --> 00:00:01,000\n'))).toBeUndefined();
    expect(await sniff(Buffer.from('1\n00:00:00,000 --> 00:00:01,000\n\u0000binary'))).toBeUndefined();
    expect(await sniff(Buffer.from([0xc3, 0x28, 0x31, 0x0a]))).toBeUndefined();
    expect(await sniff(Buffer.from('just some notes'))).toBeUndefined();
    // Real formats we do not take: ZIP, and an MP4 container holding audio (M4A).
    expect(await sniff(Buffer.from('PK\u0003\u0004\u0014\u0000\u0000\u0000'))).toBeUndefined();
    expect(
      await sniff(
        Buffer.concat([Buffer.from([0, 0, 0, 20]), Buffer.from('ftypM4A \u0000\u0000\u0000\u0000M4A ')]),
      ),
    ).toBeUndefined();
  });
});

describe('what the client declares', () => {
  const png = formatOf('image/png');
  const srt = formatOf('application/x-subrip');

  it('accepts the type, its aliases and the types that claim nothing', () => {
    for (const declared of [
      'image/png',
      'IMAGE/PNG; charset=binary',
      'image/x-png',
      'application/octet-stream',
      '',
      'text/plain',
    ]) {
      expect(mimeTypeAgrees(declared, png), declared).toBe(true);
    }
    expect(mimeTypeAgrees('text/srt', srt)).toBe(true);
    expect(mimeTypeAgrees('image/jpeg', png)).toBe(false);
    expect(mimeTypeAgrees('application/pdf', png)).toBe(false);
  });

  it('accepts no extension or one of the type, in any case; any other extension is a mismatch', () => {
    expect(fileNameAgrees('diagram', png)).toBe(true);
    expect(fileNameAgrees('Diagram.PNG', png)).toBe(true);
    expect(fileNameAgrees('diagram.jpg', png)).toBe(false);
    expect(fileNameAgrees('diagram.png.exe', png)).toBe(false);
    expect(fileNameAgrees('.hidden', png)).toBe(true);
  });

  it('keeps the last path segment of a file name, without control characters, at most 255 characters', () => {
    expect(cleanFileName('C:\\fakepath\\photo.jpg')).toBe('photo.jpg');
    expect(cleanFileName('a/b/../c.png')).toBe('c.png');
    expect(cleanFileName('bad\u0000name\n.png')).toBe('badname.png');
    expect(cleanFileName('dir/')).toBeUndefined();
    expect(cleanFileName('..')).toBeUndefined();
    expect(cleanFileName(`${'é'.repeat(300)}.png`)?.length).toBe(255);
  });

  it('knows the limits of spec 8, and a multipart limit that fits Lambda once base64-encoded', () => {
    expect(formatOfMimeType('image/gif')?.maxBytes).toBe(10 * 1024 * 1024);
    expect(formatOfMimeType('video/quicktime')?.maxBytes).toBe(100 * 1024 * 1024);
    expect(formatOfMimeType('application/pdf')?.maxBytes).toBe(100 * 1024 * 1024);
    expect(formatOfMimeType('text/vtt')?.maxBytes).toBe(5 * 1024 * 1024);
    expect(formatOfMimeType('image/avif')).toBeUndefined();
    // Base64 of the largest form plus room for headers stays under Lambda's 6 MiB request limit.
    expect(Math.ceil((MAX_DIRECT_UPLOAD_BYTES + 64 * 1024) / 3) * 4 + 64 * 1024).toBeLessThan(
      6 * 1024 * 1024,
    );
  });
});
