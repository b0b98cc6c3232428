import { describe, expect, it } from 'vitest';
import { detectFacets, type Facet, facetsFor } from '../../functions/platforms/bluesky/rich-text.ts';

/**
 * Bluesky facets against the cases of the official client's own tests
 * (bluesky-social/atproto, packages/api/tests/rich-text-detection.test.ts), plus the gaps this
 * implementation closes (upper-case schemes, unresolvable mentions, grapheme-counted tag limit,
 * the 3000-byte cap lives in the rules).
 */

/** As the official test: mentions resolve to `did:fake:<handle>`; here `nobody…` does not resolve. */
const resolve = async (handle: string) => (handle.startsWith('nobody') ? null : `did:fake:${handle}`);

/** The official test's segments: [text] or [text, did-or-uri-or-''] per facet, text between. */
const segments = (text: string, facets: Facet[]): string[][] => {
  const bytes = Buffer.from(text, 'utf8');
  const slice = (start: number, end: number) => bytes.subarray(start, end).toString('utf8');
  if (facets.length === 0) return [[text]];
  const out: string[][] = [];
  let cursor = 0;
  for (const facet of facets) {
    const { byteStart, byteEnd } = facet.index;
    if (cursor < byteStart) out.push([slice(cursor, byteStart)]);
    else if (cursor > byteStart) continue;
    const feature = facet.features[0];
    const value =
      feature?.$type === 'app.bsky.richtext.facet#mention'
        ? feature.did
        : feature?.$type === 'app.bsky.richtext.facet#link'
          ? feature.uri
          : '';
    out.push([slice(byteStart, byteEnd), value]);
    cursor = byteEnd;
  }
  if (cursor < bytes.length) out.push([slice(cursor, bytes.length)]);
  return out;
};

const tagsOf = (facets: Facet[]) =>
  facets.flatMap((f) =>
    f.features.flatMap((x) => (x.$type === 'app.bsky.richtext.facet#tag' ? [x.tag] : [])),
  );

describe("Bluesky rich text: the official client's detection cases", () => {
  const inputs = [
    'no mention',
    '@handle.com middle end',
    'start @handle.com end',
    'start middle @handle.com',
    '@handle.com @handle.com @handle.com',
    '@full123-chars.test',
    'not@right',
    '@handle.com!@#$chars',
    '@handle.com\n@handle.com',
    'parenthetical (@handle.com)',
    '👨‍👩‍👧‍👧 @handle.com 👨‍👩‍👧‍👧',

    'start https://middle.com end',
    'start https://middle.com/foo/bar end',
    'start https://middle.com/foo/bar?baz=bux end',
    'start https://middle.com/foo/bar?baz=bux#hash end',
    'https://start.com/foo/bar?baz=bux#hash middle end',
    'start middle https://end.com/foo/bar?baz=bux#hash',
    'https://newline1.com\nhttps://newline2.com',
    '👨‍👩‍👧‍👧 https://middle.com 👨‍👩‍👧‍👧',

    'start middle.com end',
    'start middle.com/foo/bar end',
    'start middle.com/foo/bar?baz=bux end',
    'start middle.com/foo/bar?baz=bux#hash end',
    'start.com/foo/bar?baz=bux#hash middle end',
    'start middle end.com/foo/bar?baz=bux#hash',
    'newline1.com\nnewline2.com',
    'a example.com/index.php php link',
    'a trailing bsky.app: colon',

    'not.. a..url ..here',
    'e.g.',
    'something-cool.jpg',
    'website.com.jpg',
    'e.g./foo',
    'website.com.jpg/foo',

    'Classic article https://socket3.wordpress.com/2018/02/03/designing-windows-95s-user-interface/',
    'Classic article https://socket3.wordpress.com/2018/02/03/designing-windows-95s-user-interface/ ',
    'https://foo.com https://bar.com/whatever https://baz.com',
    'punctuation https://foo.com, https://bar.com/whatever; https://baz.com.',
    'parenthentical (https://foo.com)',
    'except for https://foo.com/thing_(cool)',
  ];
  const outputs: string[][][] = [
    [['no mention']],
    [['@handle.com', 'did:fake:handle.com'], [' middle end']],
    [['start '], ['@handle.com', 'did:fake:handle.com'], [' end']],
    [['start middle '], ['@handle.com', 'did:fake:handle.com']],
    [
      ['@handle.com', 'did:fake:handle.com'],
      [' '],
      ['@handle.com', 'did:fake:handle.com'],
      [' '],
      ['@handle.com', 'did:fake:handle.com'],
    ],
    [['@full123-chars.test', 'did:fake:full123-chars.test']],
    [['not@right']],
    [['@handle.com', 'did:fake:handle.com'], ['!@#$chars']],
    [['@handle.com', 'did:fake:handle.com'], ['\n'], ['@handle.com', 'did:fake:handle.com']],
    [['parenthetical ('], ['@handle.com', 'did:fake:handle.com'], [')']],
    [['👨‍👩‍👧‍👧 '], ['@handle.com', 'did:fake:handle.com'], [' 👨‍👩‍👧‍👧']],

    [['start '], ['https://middle.com', 'https://middle.com'], [' end']],
    [['start '], ['https://middle.com/foo/bar', 'https://middle.com/foo/bar'], [' end']],
    [['start '], ['https://middle.com/foo/bar?baz=bux', 'https://middle.com/foo/bar?baz=bux'], [' end']],
    [
      ['start '],
      ['https://middle.com/foo/bar?baz=bux#hash', 'https://middle.com/foo/bar?baz=bux#hash'],
      [' end'],
    ],
    [['https://start.com/foo/bar?baz=bux#hash', 'https://start.com/foo/bar?baz=bux#hash'], [' middle end']],
    [['start middle '], ['https://end.com/foo/bar?baz=bux#hash', 'https://end.com/foo/bar?baz=bux#hash']],
    [
      ['https://newline1.com', 'https://newline1.com'],
      ['\n'],
      ['https://newline2.com', 'https://newline2.com'],
    ],
    [['👨‍👩‍👧‍👧 '], ['https://middle.com', 'https://middle.com'], [' 👨‍👩‍👧‍👧']],

    [['start '], ['middle.com', 'https://middle.com'], [' end']],
    [['start '], ['middle.com/foo/bar', 'https://middle.com/foo/bar'], [' end']],
    [['start '], ['middle.com/foo/bar?baz=bux', 'https://middle.com/foo/bar?baz=bux'], [' end']],
    [['start '], ['middle.com/foo/bar?baz=bux#hash', 'https://middle.com/foo/bar?baz=bux#hash'], [' end']],
    [['start.com/foo/bar?baz=bux#hash', 'https://start.com/foo/bar?baz=bux#hash'], [' middle end']],
    [['start middle '], ['end.com/foo/bar?baz=bux#hash', 'https://end.com/foo/bar?baz=bux#hash']],
    [['newline1.com', 'https://newline1.com'], ['\n'], ['newline2.com', 'https://newline2.com']],
    [['a '], ['example.com/index.php', 'https://example.com/index.php'], [' php link']],
    [['a trailing '], ['bsky.app', 'https://bsky.app'], [': colon']],

    [['not.. a..url ..here']],
    [['e.g.']],
    [['something-cool.jpg']],
    [['website.com.jpg']],
    [['e.g./foo']],
    [['website.com.jpg/foo']],

    [
      ['Classic article '],
      [
        'https://socket3.wordpress.com/2018/02/03/designing-windows-95s-user-interface/',
        'https://socket3.wordpress.com/2018/02/03/designing-windows-95s-user-interface/',
      ],
    ],
    [
      ['Classic article '],
      [
        'https://socket3.wordpress.com/2018/02/03/designing-windows-95s-user-interface/',
        'https://socket3.wordpress.com/2018/02/03/designing-windows-95s-user-interface/',
      ],
      [' '],
    ],
    [
      ['https://foo.com', 'https://foo.com'],
      [' '],
      ['https://bar.com/whatever', 'https://bar.com/whatever'],
      [' '],
      ['https://baz.com', 'https://baz.com'],
    ],
    [
      ['punctuation '],
      ['https://foo.com', 'https://foo.com'],
      [', '],
      ['https://bar.com/whatever', 'https://bar.com/whatever'],
      ['; '],
      ['https://baz.com', 'https://baz.com'],
      ['.'],
    ],
    [['parenthentical ('], ['https://foo.com', 'https://foo.com'], [')']],
    [['except for '], ['https://foo.com/thing_(cool)', 'https://foo.com/thing_(cool)']],
  ];
  it('mentions and links as the official client segments them', async () => {
    for (let i = 0; i < inputs.length; i++) {
      const input = inputs[i] as string;
      expect([input, segments(input, await facetsFor(input, resolve))]).toEqual([input, outputs[i]]);
    }
  });

  describe('tags', () => {
    const inputs: [string, string[], { byteStart: number; byteEnd: number }[]][] = [
      ['#a', ['a'], [{ byteStart: 0, byteEnd: 2 }]],
      [
        '#a #b',
        ['a', 'b'],
        [
          { byteStart: 0, byteEnd: 2 },
          { byteStart: 3, byteEnd: 5 },
        ],
      ],
      ['#1', [], []],
      ['#1a', ['1a'], [{ byteStart: 0, byteEnd: 3 }]],
      ['#tag', ['tag'], [{ byteStart: 0, byteEnd: 4 }]],
      ['body #tag', ['tag'], [{ byteStart: 5, byteEnd: 9 }]],
      ['#tag body', ['tag'], [{ byteStart: 0, byteEnd: 4 }]],
      ['body #tag body', ['tag'], [{ byteStart: 5, byteEnd: 9 }]],
      ['body #1', [], []],
      ['body #1a', ['1a'], [{ byteStart: 5, byteEnd: 8 }]],
      ['body #a1', ['a1'], [{ byteStart: 5, byteEnd: 8 }]],
      ['#', [], []],
      ['#?', [], []],
      ['text #', [], []],
      ['text # text', [], []],
      [
        'body #thisisa64characterstring_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
        ['thisisa64characterstring_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
        [{ byteStart: 5, byteEnd: 70 }],
      ],
      ['body #thisisa65characterstring_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab', [], []],
      [
        'body #thisisa64characterstring_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!',
        ['thisisa64characterstring_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
        [{ byteStart: 5, byteEnd: 70 }],
      ],
      ['its a #double#rainbow', ['double#rainbow'], [{ byteStart: 6, byteEnd: 21 }]],
      ['##hashash', ['#hashash'], [{ byteStart: 0, byteEnd: 9 }]],
      ['##', [], []],
      ['some #n0n3s@n5e!', ['n0n3s@n5e'], [{ byteStart: 5, byteEnd: 15 }]],
      ['works #with,punctuation', ['with,punctuation'], [{ byteStart: 6, byteEnd: 23 }]],
      [
        'strips trailing #punctuation, #like. #this!',
        ['punctuation', 'like', 'this'],
        [
          { byteStart: 16, byteEnd: 28 },
          { byteStart: 30, byteEnd: 35 },
          { byteStart: 37, byteEnd: 42 },
        ],
      ],
      ['strips #multi_trailing___...', ['multi_trailing'], [{ byteStart: 7, byteEnd: 22 }]],
      [
        'works with #🦋 emoji, and #butter🦋fly',
        ['🦋', 'butter🦋fly'],
        [
          { byteStart: 11, byteEnd: 16 },
          { byteStart: 28, byteEnd: 42 },
        ],
      ],
      [
        '#same #same #but #diff',
        ['same', 'same', 'but', 'diff'],
        [
          { byteStart: 0, byteEnd: 5 },
          { byteStart: 6, byteEnd: 11 },
          { byteStart: 12, byteEnd: 16 },
          { byteStart: 17, byteEnd: 22 },
        ],
      ],
      ['this #️⃣tag should not be a tag', [], []],
      [
        'this ##️⃣tag should be a tag',
        ['#️⃣tag'],
        [
          {
            byteStart: 5,
            byteEnd: 16,
          },
        ],
      ],
      [
        'this #t\nag should be a tag',
        ['t'],
        [
          {
            byteStart: 5,
            byteEnd: 7,
          },
        ],
      ],
      ['no match (\\u200B): #​', [], []],
      ['no match (\\u200Ba): #​a', [], []],
      ['match (a\\u200Bb): #a​b', ['a'], [{ byteStart: 18, byteEnd: 20 }]],
      ['match (ab\\u200B): #ab​', ['ab'], [{ byteStart: 18, byteEnd: 21 }]],
      ['no match (\\u20e2tag): #⃢tag', [], []],
      ['no match (a\\u20e2b): #a⃢b', ['a'], [{ byteStart: 21, byteEnd: 23 }]],
      ['match full width number sign (tag): ＃tag', ['tag'], [{ byteStart: 36, byteEnd: 42 }]],
      ['match full width number sign (tag): ＃#️⃣tag', ['#️⃣tag'], [{ byteStart: 36, byteEnd: 49 }]],
      ['no match 1?: #1?', [], []],
    ];

    it.each(inputs)('%s', async (input, tags, indices) => {
      const facets = await facetsFor(input, resolve);
      expect(tagsOf(facets)).toEqual(tags);
      expect(facets.map((f) => f.index)).toEqual(indices);
    });
  });

  describe('cashtags (a tag facet "$TICKER", as the official client stores them)', () => {
    const inputs: [string, string[], { byteStart: number; byteEnd: number }[]][] = [
      ['$AAPL', ['$AAPL'], [{ byteStart: 0, byteEnd: 5 }]],
      ['$aapl', ['$AAPL'], [{ byteStart: 0, byteEnd: 5 }]], // normalized to uppercase
      ['$A', ['$A'], [{ byteStart: 0, byteEnd: 2 }]],
      ['$a', ['$A'], [{ byteStart: 0, byteEnd: 2 }]], // single char normalized
      [
        '$BTC $ETH',
        ['$BTC', '$ETH'],
        [
          { byteStart: 0, byteEnd: 4 },
          { byteStart: 5, byteEnd: 9 },
        ],
      ],
      ['$100', [], []], // starts with digit - not a cashtag
      ['$GOOGL', ['$GOOGL'], [{ byteStart: 0, byteEnd: 6 }]], // 5 chars - max length
      ['$TOOLONG', [], []], // >5 chars
      ['check $LEGO now', ['$LEGO'], [{ byteStart: 6, byteEnd: 11 }]],
      ['($GOOG)', ['$GOOG'], [{ byteStart: 1, byteEnd: 6 }]],
      ['$AAPL.', ['$AAPL'], [{ byteStart: 0, byteEnd: 5 }]], // trailing punctuation
      [
        '$AAPL, $MSFT!',
        ['$AAPL', '$MSFT'],
        [
          { byteStart: 0, byteEnd: 5 },
          { byteStart: 7, byteEnd: 12 },
        ],
      ],
      ['no$SPACE', [], []], // must have leading space or start
      ['$', [], []], // just dollar sign
      ['$ AAPL', [], []], // space after $
      ['$123ABC', [], []], // starts with digit
      ['$ABC12', ['$ABC12'], [{ byteStart: 0, byteEnd: 6 }]], // digits after letters OK (5 chars)
      ['$ABC123', [], []], // 6 chars - too long
    ];

    it.each(inputs)('%s', (input, tags, indices) => {
      const facets = detectFacets(input).filter(
        (f): f is Facet =>
          f.features[0]?.$type === 'app.bsky.richtext.facet#tag' && f.features[0].tag.startsWith('$'),
      );
      expect(tagsOf(facets)).toEqual(tags);
      expect(facets.map((f) => f.index)).toEqual(indices);
    });
  });
});

describe('Bluesky rich text: beyond the official client', () => {
  it('links a URL whose scheme is not lower-case, writing the scheme lower-case', async () => {
    expect(
      segments('see HTTPS://Example.com/A now', await facetsFor('see HTTPS://Example.com/A now', resolve)),
    ).toEqual([['see '], ['HTTPS://Example.com/A', 'https://Example.com/A'], [' now']]);
    expect(segments('Http://x.org', await facetsFor('Http://x.org', resolve))).toEqual([
      ['Http://x.org', 'http://x.org'],
    ]);
  });

  it('links a bare domain in upper case too', async () => {
    expect(segments('go to EXAMPLE.COM', await facetsFor('go to EXAMPLE.COM', resolve))).toEqual([
      ['go to '],
      ['EXAMPLE.COM', 'https://EXAMPLE.COM'],
    ]);
  });

  it('leaves a mention that does not resolve as plain text, and resolves each handle once', async () => {
    const asked: string[] = [];
    const counting = async (handle: string) => {
      asked.push(handle);
      return resolve(handle);
    };
    const text = 'hi @nobody.bsky.social and @alice.bsky.social, @Alice.bsky.social';
    const facets = await facetsFor(text, counting);
    expect(segments(text, facets)).toEqual([
      ['hi @nobody.bsky.social and '],
      ['@alice.bsky.social', 'did:fake:alice.bsky.social'],
      [', '],
      ['@Alice.bsky.social', 'did:fake:alice.bsky.social'],
    ]);
    expect(asked).toEqual(['nobody.bsky.social', 'alice.bsky.social']);
  });

  it('counts the 64-tag limit in graphemes, not UTF-16 units', async () => {
    // A flag: one grapheme, four UTF-16 units (the official client's 64 is in graphemes too).
    const family = '🇵🇹';
    expect(tagsOf(await facetsFor(`#${family.repeat(64)}`, resolve))).toEqual([family.repeat(64)]);
    expect(tagsOf(await facetsFor(`#${family.repeat(65)}`, resolve))).toEqual([]);
  });

  it('byte offsets count UTF-8 bytes', async () => {
    const text = 'é #tag https://a.com';
    expect((await facetsFor(text, resolve)).map((f) => f.index)).toEqual([
      { byteStart: 3, byteEnd: 7 },
      { byteStart: 8, byteEnd: 21 },
    ]);
  });

  it('a failing resolver (PDS unreachable) is an error, not a silent plain-text mention', async () => {
    await expect(
      facetsFor('@alice.bsky.social', async () => {
        throw new Error('down');
      }),
    ).rejects.toThrow('down');
  });
});
