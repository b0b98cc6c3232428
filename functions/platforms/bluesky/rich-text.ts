// twitter-text's two TLD expressions, not its index (whose autolinker and validators would cost
// the Bluesky client about 55 KiB more); the CommonJS files export the expressions themselves.
import validCCTLD from 'twitter-text/dist/regexp/validCCTLD.js';
import validGTLD from 'twitter-text/dist/regexp/validGTLD.js';

/**
 * Bluesky rich text: the facets the official client (`@atproto/api`'s `RichText.detectFacets`)
 * attaches to a post, so links, mentions, hashtags and cashtags work as they do when a person
 * posts from the app. Facet ranges are UTF-8 byte offsets into the text.
 *
 * The same rules as the official client, with its known gaps closed:
 * - links: `http(s)://…` in any letter case (the scheme is written lower-case in the facet), and
 *   bare domains with a known top-level domain (`example.com/path` → `https://example.com/path`);
 *   one trailing `.,;:!?` is left out, and a closing `)` when the link has no `(`;
 * - mentions: `@handle` with a handle under a known top-level domain (or `.test`), resolved to
 *   a DID; a handle that does not resolve stays plain text (the official client leaves an empty,
 *   invalid DID);
 * - hashtags: `#tag` / `＃tag` after a space or at the start, not only digits, trailing
 *   punctuation left out, at most 64 graphemes, never the keycap emoji `#️⃣`; stored without `#`;
 * - cashtags: `$` and 1-5 letters or digits starting with a letter, stored as a tag facet
 *   `$TICKER` (upper-cased), as the official client does.
 *
 * The top-level domains are twitter-text's list (already a dependency), where the official client
 * uses the `tlds` package.
 */

export type FacetFeature =
  | { $type: 'app.bsky.richtext.facet#mention'; did: string }
  | { $type: 'app.bsky.richtext.facet#link'; uri: string }
  | { $type: 'app.bsky.richtext.facet#tag'; tag: string };

export interface Facet {
  index: { byteStart: number; byteEnd: number };
  features: FacetFeature[];
}

/** A facet as detected, before mentions are resolved: a mention carries its handle. */
export type DetectedFacet =
  | Facet
  | { index: Facet['index']; features: [{ $type: 'mention'; handle: string }] };

const MENTION_REGEX = /(^|\s|\()(@)([a-zA-Z0-9.-]+)(\b)/g;
const URL_REGEX = /(^|\s|\()((https?:\/\/[\S]+)|((?<domain>[a-z][a-z0-9]*(\.[a-z0-9]+)+)[\S]*))/gim;
const TRAILING_PUNCTUATION_REGEX = /\p{P}+$/gu;
/** `\ufe0f` (emoji presentation: the keycap) and zero-width characters never start or make a tag. */
const TAG_REGEX =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: the official client's expression, zero-width characters listed on purpose
  /(^|\s)[#＃]((?!\ufe0f)[^\s\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]*[^\d\s\p{P}\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]+[^\s\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]*)?/gu;
const CASHTAG_REGEX = /(^|\s|\()\$([A-Za-z][A-Za-z0-9]{0,4})(?=\s|$|[.,;:!?)"'\u2019])/gu;

const TLD = new RegExp(`^(?:${validGTLD.source}|${validCCTLD.source})$`, 'i');

/** A name ending in a dot and a known top-level domain. */
const isValidDomain = (name: string): boolean => {
  const dot = name.lastIndexOf('.');
  return dot > 0 && dot < name.length - 1 && TLD.test(name.slice(dot + 1));
};

const graphemeCount = (text: string) =>
  [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].length;

/** UTF-16 index → UTF-8 byte offset. */
const byteIndex = (text: string, index: number) => Buffer.byteLength(text.slice(0, index), 'utf8');

const range = (text: string, start: number, end: number) => ({
  byteStart: byteIndex(text, start),
  byteEnd: byteIndex(text, end),
});

/** Every facet in `text`, mentions unresolved, in text order. */
export const detectFacets = (text: string): DetectedFacet[] => {
  const facets: DetectedFacet[] = [];
  for (const match of text.matchAll(MENTION_REGEX)) {
    const handle = match[3] as string;
    if (!isValidDomain(handle) && !handle.endsWith('.test')) continue; // probably not a handle
    const start = text.indexOf(handle, match.index) - 1;
    facets.push({
      index: range(text, start, start + handle.length + 1),
      features: [{ $type: 'mention', handle: handle.toLowerCase() }],
    });
  }
  for (const match of text.matchAll(URL_REGEX)) {
    const found = match[2] as string;
    let uri = found;
    if (/^https?:\/\//i.test(uri)) {
      uri = uri.replace(/^https?/i, (scheme) => scheme.toLowerCase());
    } else {
      const domain = match.groups?.domain;
      if (!domain || !isValidDomain(domain)) continue;
      uri = `https://${uri}`;
    }
    const start = text.indexOf(found, match.index);
    let end = start + found.length;
    if (/[.,;:!?]$/.test(uri)) {
      uri = uri.slice(0, -1);
      end--;
    }
    if (uri.endsWith(')') && !uri.includes('(')) {
      uri = uri.slice(0, -1);
      end--;
    }
    facets.push({
      index: range(text, start, end),
      features: [{ $type: 'app.bsky.richtext.facet#link', uri }],
    });
  }
  for (const match of text.matchAll(TAG_REGEX)) {
    const leading = match[1] as string;
    const raw = match[2];
    if (!raw) continue;
    const tag = raw.trim().replace(TRAILING_PUNCTUATION_REGEX, '');
    if (tag.length === 0 || graphemeCount(tag) > 64) continue;
    const start = (match.index as number) + leading.length;
    facets.push({
      index: range(text, start, start + 1 + tag.length),
      features: [{ $type: 'app.bsky.richtext.facet#tag', tag }],
    });
  }
  for (const match of text.matchAll(CASHTAG_REGEX)) {
    const leading = match[1] as string;
    const ticker = (match[2] as string).toUpperCase();
    const start = (match.index as number) + leading.length;
    facets.push({
      index: range(text, start, start + 1 + ticker.length),
      features: [{ $type: 'app.bsky.richtext.facet#tag', tag: `$${ticker}` }],
    });
  }
  return facets.sort((a, b) => a.index.byteStart - b.index.byteStart);
};

/**
 * The facets of `text` with every mention resolved to a DID by `resolve` (null: the handle does
 * not resolve, and the mention stays plain text). Each handle is resolved once; an error thrown by
 * `resolve` (the PDS unreachable) propagates.
 */
export const facetsFor = async (
  text: string,
  resolve: (handle: string) => Promise<string | null>,
): Promise<Facet[]> => {
  const detected = detectFacets(text);
  const dids = new Map<string, Promise<string | null>>();
  for (const facet of detected) {
    const feature = facet.features[0];
    if (feature?.$type === 'mention' && !dids.has(feature.handle))
      dids.set(feature.handle, resolve(feature.handle));
  }
  const resolved = new Map<string, string | null>();
  for (const [handle, did] of dids) resolved.set(handle, await did);
  const facets: Facet[] = [];
  for (const facet of detected) {
    const feature = facet.features[0];
    if (feature?.$type === 'mention') {
      const did = resolved.get(feature.handle);
      if (did)
        facets.push({ index: facet.index, features: [{ $type: 'app.bsky.richtext.facet#mention', did }] });
    } else {
      facets.push(facet as Facet);
    }
  }
  return facets;
};
