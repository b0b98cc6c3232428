import { fileTypeFromBuffer } from 'file-type';
import { formatOf, formatOfMimeType, type MediaFormat } from './formats.ts';

/** How much of the start of a file the sniffer looks at (file-type needs at most 4100 bytes for ours). */
export const SNIFF_BYTES = 64 * 1024;

/** The start of the file as UTF-8 text, or undefined when it is not text (bad UTF-8, NUL bytes). */
const asText = (head: Uint8Array): string | undefined => {
  try {
    // `stream` tolerates a character cut in two at the end of the sample.
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(head, { stream: true });
    return text.includes('\u0000') ? undefined : text;
  } catch {
    return undefined;
  }
};

/** WebVTT: the file starts with `WEBVTT`, then a space, a tab or the end of the line (W3C WebVTT, 4.1). */
const isWebVtt = (text: string): boolean => /^WEBVTT(?:[ \t]|\r?\n|\r|$)/.test(text);

const SRT_TIMING =
  /^\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}[ \t]*-->[ \t]*\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}(?:[ \t].*)?$/;

/** SubRip: the first cue is a number on its own line, then a `00:00:01,000 --> 00:00:02,000` line. */
const isSubRip = (text: string): boolean => {
  const lines = text.split(/\r\n|\r|\n/);
  let i = 0;
  while (i < lines.length && lines[i]?.trim() === '') i++;
  return /^\d+$/.test(lines[i]?.trim() ?? '') && SRT_TIMING.test(lines[i + 1]?.trim() ?? '');
};

/**
 * The real type of a file, from the first bytes of its content (magic numbers through `file-type`;
 * WebVTT and SubRip have none, so their text shape decides). Undefined: not a type we take.
 */
export const sniffMediaFormat = async (head: Uint8Array): Promise<MediaFormat | undefined> => {
  const detected = await fileTypeFromBuffer(head);
  if (detected) return formatOfMimeType(detected.mime);
  const text = asText(head);
  if (text === undefined) return undefined;
  if (isWebVtt(text)) return formatOf('text/vtt');
  if (isSubRip(text)) return formatOf('application/x-subrip');
  return undefined;
};
