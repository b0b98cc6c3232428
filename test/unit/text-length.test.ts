import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getPlatform } from '../../functions/domain/platforms/catalog.ts';
import { exceedsLimit, isEmojiGrapheme, textLength } from '../../functions/domain/platforms/text-length.ts';
import type { Platform, TextCounting } from '../../functions/domain/platforms/types.ts';

const platform = (id: string): Platform => {
  const found = getPlatform(id);
  if (!found) throw new Error(`no platform ${id}`);
  return found;
};

const GRINNING = '\u{1F600}'; // 😀, 4 UTF-8 bytes, 2 UTF-16 units
const FAMILY = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}'; // 👨‍👩‍👧‍👦, 7 code points, 25 bytes
const FLAG_FR = '\u{1F1EB}\u{1F1F7}'; // 🇫🇷, 2 code points, 8 bytes
const KEYCAP_ONE = '1\uFE0F\u20E3'; // 1️⃣, 3 code points, 7 bytes
const THUMBS_MEDIUM = '\u{1F44D}\u{1F3FD}'; // 👍🏽, 2 code points, 8 bytes
const RED_HEART = '\u2764\uFE0F'; // ❤️, 2 code points, 6 bytes
/** Not on the RGI list, but still shown (and segmented) as one emoji. */
const FAMILY_WITH_DOG = `${FAMILY}\u200D\u{1F415}`; // 32 bytes
const TONED_GRIN = '\u{1F600}\u{1F3FD}'; // 😀 + a skin tone it does not take: 8 bytes
const E_COMBINING = 'e\u0301'; // é as e + combining acute: 2 code points, 1 grapheme
const E_PRECOMPOSED = '\u00E9'; // é as one code point, 2 UTF-8 bytes
const MATH_X = '\u{1D4B3}'; // 𝒳, astral, 2 UTF-16 units
const LONG_URL = 'https://example.com/a/very/long/path/that/is/much/longer/than/twenty/three/characters';

type Row = [label: string, text: string, counting: TextCounting, expected: number];

const rows: Row[] = [
  // X: twitter-text weighted length
  ['X: ASCII counts 1 each', 'hello', 'weighted', 5],
  ['X: a long URL counts 23', LONG_URL, 'weighted', 23],
  ['X: a short URL still counts 23', 'https://a.co', 'weighted', 23],
  ['X: text around a URL', `see ${LONG_URL} now`, 'weighted', 4 + 23 + 4],
  ['X: CJK counts 2 each', '日本語', 'weighted', 6],
  ['X: Hangul counts 2 each', '한국어', 'weighted', 6],
  ['X: Cyrillic counts 1 each', 'привет', 'weighted', 6],
  ['X: an emoji counts 2', GRINNING, 'weighted', 2],
  ['X: a ZWJ family counts 2', FAMILY, 'weighted', 2],
  ['X: a skin-tone emoji counts 2', THUMBS_MEDIUM, 'weighted', 2],
  ['X: empty text', '', 'weighted', 0],

  // Bluesky: grapheme clusters
  ['graphemes: ASCII', 'hello', 'graphemes', 5],
  ['graphemes: combining accent is one', E_COMBINING, 'graphemes', 1],
  ['graphemes: several combining marks stay one', 'a\u0301\u0302\u0303', 'graphemes', 1],
  ['graphemes: ZWJ family is one', FAMILY, 'graphemes', 1],
  ['graphemes: flag is one', FLAG_FR, 'graphemes', 1],
  ['graphemes: keycap is one', KEYCAP_ONE, 'graphemes', 1],
  ['graphemes: CRLF is one', '\r\n', 'graphemes', 1],
  ['graphemes: mixed text', `hi ${FAMILY}${E_COMBINING}!`, 'graphemes', 6],
  ['graphemes: empty text', '', 'graphemes', 0],

  // Threads: code points, emoji as UTF-8 bytes
  ['Threads: ordinary text counts code points', 'hello', 'codepoints_emoji_bytes', 5],
  ['Threads: precomposed é is 1, not its 2 bytes', `caf${E_PRECOMPOSED}`, 'codepoints_emoji_bytes', 4],
  ['Threads: combining é is 2 code points', E_COMBINING, 'codepoints_emoji_bytes', 2],
  ['Threads: CJK counts code points, not bytes', '日本語', 'codepoints_emoji_bytes', 3],
  ['Threads: astral letter counts 1', MATH_X, 'codepoints_emoji_bytes', 1],
  ['Threads: 😀 counts 4', GRINNING, 'codepoints_emoji_bytes', 4],
  ['Threads: ❤️ counts 6', RED_HEART, 'codepoints_emoji_bytes', 6],
  ['Threads: flag counts 8', FLAG_FR, 'codepoints_emoji_bytes', 8],
  ['Threads: keycap counts 7', KEYCAP_ONE, 'codepoints_emoji_bytes', 7],
  ['Threads: skin tone counts 8', THUMBS_MEDIUM, 'codepoints_emoji_bytes', 8],
  ['Threads: ZWJ family counts 25', FAMILY, 'codepoints_emoji_bytes', 25],
  ['Threads: non-RGI ZWJ sequence counts its 32 bytes', FAMILY_WITH_DOG, 'codepoints_emoji_bytes', 32],
  ['Threads: non-RGI skin-tone pair counts its 8 bytes', TONED_GRIN, 'codepoints_emoji_bytes', 8],
  ['Threads: text-style © counts 1', '\u00A9', 'codepoints_emoji_bytes', 1],
  ['Threads: emoji-style ©️ counts 5', '\u00A9\uFE0F', 'codepoints_emoji_bytes', 5],
  ['Threads: mixed text', `ok ${GRINNING}!`, 'codepoints_emoji_bytes', 3 + 4 + 1],
  ['Threads: empty text', '', 'codepoints_emoji_bytes', 0],

  // Everyone else: Unicode code points
  ['codepoints: ASCII', 'hello', 'codepoints', 5],
  ['codepoints: astral letter counts 1, not 2', MATH_X, 'codepoints', 1],
  ['codepoints: emoji counts 1, not 2', GRINNING, 'codepoints', 1],
  ['codepoints: ZWJ family counts its 7 code points', FAMILY, 'codepoints', 7],
  ['codepoints: combining é counts 2', E_COMBINING, 'codepoints', 2],
  ['codepoints: CJK counts 1 each', '日本語', 'codepoints', 3],
  ['codepoints: a URL counts its characters', 'https://a.co', 'codepoints', 12],
  ['codepoints: empty text', '', 'codepoints', 0],
];

describe('textLength', () => {
  it.each(rows)('%s', (_label, text, counting, expected) => {
    expect(textLength(text, counting)).toBe(expected);
  });
});

type LimitRow = [label: string, platformId: string, text: string, exceeds: boolean];

const limitRows: LimitRow[] = [
  ['X: 280 ASCII fits', 'x', 'a'.repeat(280), false],
  ['X: 281 ASCII is too long', 'x', 'a'.repeat(281), true],
  ['X: 140 CJK fit (weight 280)', 'x', '日'.repeat(140), false],
  ['X: 141 CJK are too long', 'x', '日'.repeat(141), true],
  ['X: 257 ASCII + URL fit (257 + 23)', 'x', `${'a'.repeat(256)} ${LONG_URL}`, false],
  ['X: 258 ASCII + URL are too long', 'x', `${'a'.repeat(257)} ${LONG_URL}`, true],
  ['X: 140 emoji fit', 'x', GRINNING.repeat(140), false],
  ['X: 141 emoji are too long', 'x', GRINNING.repeat(141), true],
  ['Bluesky: 300 graphemes fit', 'bluesky', 'a'.repeat(300), false],
  ['Bluesky: 301 graphemes are too long', 'bluesky', 'a'.repeat(301), true],
  ['Bluesky: 300 combining é fit (600 code points)', 'bluesky', E_COMBINING.repeat(300), false],
  ['Bluesky: 301 combining é are too long', 'bluesky', E_COMBINING.repeat(301), true],
  ['Bluesky: 300 ZWJ families fit', 'bluesky', FAMILY.repeat(300), false],
  ['Bluesky: 301 ZWJ families are too long', 'bluesky', FAMILY.repeat(301), true],
  ['Threads: 500 ASCII fit', 'threads', 'a'.repeat(500), false],
  ['Threads: 501 ASCII are too long', 'threads', 'a'.repeat(501), true],
  ['Threads: 496 ASCII + 😀 fit (500)', 'threads', `${'a'.repeat(496)}${GRINNING}`, false],
  ['Threads: 497 ASCII + 😀 are too long (501)', 'threads', `${'a'.repeat(497)}${GRINNING}`, true],
  ['Threads: 125 😀 fit (500 bytes)', 'threads', GRINNING.repeat(125), false],
  ['Threads: 126 😀 are too long', 'threads', GRINNING.repeat(126), true],
  ['LinkedIn: 3000 astral letters fit (6000 UTF-16 units)', 'linkedin', MATH_X.repeat(3000), false],
  ['LinkedIn: 3001 astral letters are too long', 'linkedin', MATH_X.repeat(3001), true],
  ['Instagram: 2200 emoji fit', 'instagram', GRINNING.repeat(2200), false],
  ['Instagram: 2201 emoji are too long', 'instagram', GRINNING.repeat(2201), true],
  ['Pinterest: 800 fit', 'pinterest', 'p'.repeat(800), false],
  ['Pinterest: 801 are too long', 'pinterest', 'p'.repeat(801), true],
];

describe('exceedsLimit', () => {
  it.each(limitRows)('%s', (_label, platformId, text, exceeds) => {
    expect(exceedsLimit(text, platform(platformId))).toBe(exceeds);
  });

  it('lets empty text through on every network', () => {
    for (const id of ['x', 'linkedin', 'threads', 'bluesky', 'reddit'])
      expect(exceedsLimit('', platform(id))).toBe(false);
  });
});

describe('isEmojiGrapheme', () => {
  it.each([
    GRINNING,
    FAMILY,
    FAMILY_WITH_DOG,
    TONED_GRIN,
    FLAG_FR,
    KEYCAP_ONE,
    THUMBS_MEDIUM,
    RED_HEART,
    '\u00A9\uFE0F',
  ])('%s is an emoji', (g) => {
    expect(isEmojiGrapheme(g)).toBe(true);
  });

  it.each(['a', '1', '#', E_PRECOMPOSED, E_COMBINING, '日', MATH_X, '\u00A9', '\u2764', ' '])(
    '%j is not an emoji',
    (g) => {
      expect(isEmojiGrapheme(g)).toBe(false);
    },
  );
});

describe('counting invariants', () => {
  const anyText = fc.string({ unit: 'grapheme', maxLength: 40 });
  const printableAscii = fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  });

  it('never counts more graphemes than code points', () => {
    fc.assert(fc.property(anyText, (s) => textLength(s, 'graphemes') <= textLength(s, 'codepoints')));
  });

  it('counting emoji as bytes never gives less than counting code points', () => {
    fc.assert(
      fc.property(anyText, (s) => textLength(s, 'codepoints_emoji_bytes') >= textLength(s, 'codepoints')),
    );
  });

  it('code points never exceed UTF-16 units', () => {
    fc.assert(fc.property(anyText, (s) => textLength(s, 'codepoints') <= s.length));
  });

  it('counts printable ASCII the same way everywhere but X', () => {
    fc.assert(
      fc.property(printableAscii, (s) => {
        const n = s.length;
        return (
          textLength(s, 'codepoints') === n &&
          textLength(s, 'graphemes') === n &&
          textLength(s, 'codepoints_emoji_bytes') === n
        );
      }),
    );
  });

  it('is additive for emoji on Threads', () => {
    fc.assert(
      fc.property(fc.nat({ max: 50 }), fc.nat({ max: 50 }), (letters, emoji) => {
        const text = 'a'.repeat(letters) + GRINNING.repeat(emoji);
        return textLength(text, 'codepoints_emoji_bytes') === letters + 4 * emoji;
      }),
    );
  });
});
