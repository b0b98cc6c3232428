// Only parseTweet (X's weighted length, config v3), not the package's index: the index's autolinker,
// extractors and validators, with their core-js 2 polyfills, cost about 28 KiB more in every
// function that validates posts. The CommonJS file exports the function itself.
import parseTweet from 'twitter-text/dist/parseTweet.js';
import type { Platform, TextCounting } from './types.ts';

const graphemeSegmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const utf8 = new TextEncoder();

/**
 * A whole grapheme that is a recommended-for-general-interchange emoji (faces, flags, keycaps,
 * skin tones, ZWJ families...). Built with the constructor because TypeScript refuses a `v`-flag
 * literal below target ES2024; Node 20 supports the flag at run time.
 */
// biome-ignore lint/complexity/useRegexLiterals: a /v literal does not compile for target ES2022
const RGI_EMOJI = new RegExp('^\\p{RGI_Emoji}$', 'v');
/** Emoji the RGI list does not name, such as unusual ZWJ combinations or a pictograph with VS16. */
const OTHER_EMOJI = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F/u;

const graphemes = (text: string): string[] =>
  Array.from(graphemeSegmenter.segment(text), (part) => part.segment);

const codePointCount = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

/**
 * Whether a grapheme is shown as an emoji. Text-style symbols without VS16, such as a bare
 * "©" or "❤", are not: they count as ordinary characters.
 */
export const isEmojiGrapheme = (grapheme: string): boolean =>
  RGI_EMOJI.test(grapheme) || OTHER_EMOJI.test(grapheme);

/** Length of `text` as a network that counts the way `counting` says would measure it. */
export const textLength = (text: string, counting: TextCounting): number => {
  switch (counting) {
    case 'weighted':
      return parseTweet(text).weightedLength;
    case 'graphemes':
      return graphemes(text).length;
    case 'codepoints':
      return codePointCount(text);
    case 'codepoints_emoji_bytes': {
      let total = 0;
      for (const grapheme of graphemes(text)) {
        total += isEmojiGrapheme(grapheme) ? utf8.encode(grapheme).length : codePointCount(grapheme);
      }
      return total;
    }
  }
};

/** True when `text` is longer than one block may be on `platform`. */
export const exceedsLimit = (text: string, platform: Platform): boolean =>
  textLength(text, platform.limits.textCounting) > platform.limits.maxLength;
