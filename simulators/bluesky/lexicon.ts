import { objectOf } from '../framework/framework.ts';

/** What the PDS stores and the lexicon checks it makes of a post (text, facets, embeds), with its messages. */
export interface StoredRecord {
  uri: string;
  cid: string;
  value: Record<string, unknown>;
}

export const isAtUri = (value: unknown): value is string =>
  typeof value === 'string' && /^at:\/\/[^/]+\/[^/]+\/[^/]+$/.test(value);

export const graphemes = (text: string) =>
  [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].length;

/** An uploaded blob as the PDS keeps it until a record references it. */
export interface StoredBlob {
  /** The uploader: its DID, or `token:<token>` for a token that is not a JWT. */
  did: string;
  cid: string;
  mimeType: string;
  size: number;
}

/** The largest video `app.bsky.embed.video` takes (lexicon `maxSize`). */
export const VIDEO_MAX_BYTES = 100_000_000;

/** The largest image `app.bsky.embed.images` takes (lexicon `maxSize`). */
export const IMAGE_MAX_BYTES = 2_000_000;

export const isNonNegativeInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;

export const isDid = (value: unknown) =>
  typeof value === 'string' && /^did:[a-z]+:[a-zA-Z0-9._:%-]+$/.test(value);

export const isUri = (value: unknown) =>
  typeof value === 'string' && /^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/.test(value);

/**
 * `app.bsky.richtext.facet` checks. The lexicon part (byte slices of non-negative integers, a
 * known feature with a DID, a URI or a tag of at most 64 graphemes / 640 characters) is what a PDS
 * validates. The range part is this simulator's own strictness: a PDS stores a facet whose range
 * falls outside the text or does not cut it at a character boundary, and the app then shows it
 * unlinked or linked on the wrong characters; here such a facet is refused, so a client that
 * counts UTF-16 units instead of UTF-8 bytes fails in tests.
 */
export const facetProblem = (text: string, facets: unknown, prefix: string): string | null => {
  if (!Array.isArray(facets)) return `${prefix} Record/facets must be an array`;
  const bytes = Buffer.from(text, 'utf8');
  const isBoundary = (at: number) => at === bytes.length || ((bytes[at] as number) & 0xc0) !== 0x80;
  for (const [i, value] of facets.entries()) {
    const path = `Record/facets/${i}`;
    const facet = objectOf(value);
    if (!facet) return `${prefix} ${path} must be an object`;
    const index = objectOf(facet.index);
    if (!index) return `${prefix} ${path} must have the property "index"`;
    for (const key of ['byteStart', 'byteEnd'] as const) {
      if (!isNonNegativeInteger(index[key]))
        return `${prefix} ${path}/index/${key} must be an integer of at least 0`;
    }
    const start = index.byteStart as number;
    const end = index.byteEnd as number;
    if (start >= end || end > bytes.length || !isBoundary(start) || !isBoundary(end)) {
      return `${prefix} ${path}/index is not a range of the text (bytes ${start}-${end} of ${bytes.length})`;
    }
    if (!Array.isArray(facet.features)) return `${prefix} ${path} must have the property "features"`;
    for (const [j, raw] of facet.features.entries()) {
      const feature = objectOf(raw);
      const at = `${path}/features/${j}`;
      if (!feature) return `${prefix} ${at} must be an object`;
      switch (feature.$type) {
        case 'app.bsky.richtext.facet#mention':
          if (!isDid(feature.did)) return `${prefix} ${at}/did must be a valid did`;
          break;
        case 'app.bsky.richtext.facet#link':
          if (!isUri(feature.uri)) return `${prefix} ${at}/uri must be a uri`;
          break;
        case 'app.bsky.richtext.facet#tag':
          if (typeof feature.tag !== 'string') return `${prefix} ${at} must have the property "tag"`;
          if (feature.tag.length > 640) return `${prefix} ${at}/tag must not be longer than 640 characters`;
          if (graphemes(feature.tag) > 64) return `${prefix} ${at}/tag must not be longer than 64 graphemes`;
          break;
        default:
          return `${prefix} ${at} $type must be one of app.bsky.richtext.facet#mention, app.bsky.richtext.facet#link, app.bsky.richtext.facet#tag`;
      }
    }
  }
  return null;
};

/** `app.bsky.embed.images` checks: blob refs to this account's uploads, sizes, alt text, aspect ratio. */
export const imagesProblem = (
  embed: Record<string, unknown>,
  prefix: string,
  blobOf: (cid: string) => StoredBlob | undefined,
): { status: number; error: string; message: string } | null => {
  const invalid = (message: string) => ({
    status: 400,
    error: 'InvalidRequest',
    message: `${prefix} ${message}`,
  });
  if (!Array.isArray(embed.images)) return invalid('Record/embed must have the property "images"');
  if (embed.images.length > 4) return invalid('Record/embed/images must not have more than 4 elements');
  for (const [i, raw] of embed.images.entries()) {
    const path = `Record/embed/images/${i}`;
    const image = objectOf(raw);
    if (!image) return invalid(`${path} must be an object`);
    if (typeof image.alt !== 'string') return invalid(`${path} must have the property "alt"`);
    const blob = objectOf(image.image);
    const link = objectOf(blob?.ref)?.$link;
    if (blob?.$type !== 'blob' || typeof link !== 'string' || !isNonNegativeInteger(blob.size)) {
      return invalid(`${path}/image should be a blob ref`);
    }
    if (typeof blob.mimeType !== 'string' || !blob.mimeType.startsWith('image/')) {
      return invalid(`${path}/image mime type should be image/* (got ${String(blob.mimeType)})`);
    }
    if (blob.size > IMAGE_MAX_BYTES) {
      return invalid(`${path}/image blob too big (maximum ${IMAGE_MAX_BYTES}, got ${blob.size})`);
    }
    if (image.aspectRatio !== undefined) {
      const ratio = objectOf(image.aspectRatio);
      if (!ratio || !Number.isInteger(ratio.width) || !Number.isInteger(ratio.height))
        return invalid(`${path}/aspectRatio must have integer width and height`);
      if ((ratio.width as number) < 1 || (ratio.height as number) < 1)
        return invalid(`${path}/aspectRatio width and height must be at least 1`);
    }
    const stored = blobOf(link);
    if (!stored) return { status: 400, error: 'BlobNotFound', message: `Could not find blob: ${link}` };
    if (stored.size !== blob.size || stored.mimeType !== blob.mimeType) {
      return invalid(`${path}/image does not match the uploaded blob ${link}`);
    }
  }
  return null;
};

/** Lexicon checks of `app.bsky.feed.post`, with the PDS's messages; null when valid. */
export const postProblem = (record: Record<string, unknown>): string | null => {
  const prefix = 'Invalid app.bsky.feed.post record:';
  if (typeof record.text !== 'string') return `${prefix} Record must have the property "text"`;
  if (Buffer.byteLength(record.text) > 3000)
    return `${prefix} Record/text must not be longer than 3000 characters`;
  if (graphemes(record.text) > 300) return `${prefix} Record/text must not be longer than 300 graphemes`;
  if (typeof record.createdAt !== 'string') return `${prefix} Record must have the property "createdAt"`;
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(record.createdAt)) {
    return `${prefix} Record/createdAt must be an valid atproto datetime (both RFC-3339 and ISO-8601)`;
  }
  if (record.langs !== undefined) {
    if (!Array.isArray(record.langs) || record.langs.some((lang) => typeof lang !== 'string')) {
      return `${prefix} Record/langs must be an array`;
    }
    if (record.langs.length > 3) return `${prefix} Record/langs must not have more than 3 elements`;
  }
  if (record.facets !== undefined) {
    const problem = facetProblem(record.text, record.facets, prefix);
    if (problem) return problem;
  }
  if (record.reply !== undefined) {
    const reply = objectOf(record.reply);
    if (!reply) return `${prefix} Record/reply must be an object`;
    for (const key of ['root', 'parent'] as const) {
      const ref = objectOf(reply[key]);
      if (!ref) return `${prefix} Record/reply must have the property "${key}"`;
      if (!isAtUri(ref.uri)) return `${prefix} Record/reply/${key}/uri must be a valid at-uri`;
      if (typeof ref.cid !== 'string' || ref.cid === '')
        return `${prefix} Record/reply/${key}/cid must be a cid string`;
    }
  }
  return null;
};

/** The `sub` of a JWT-shaped token, or null when the token is not a JWT. */
export const jwtSubject = (token: string): string | null => {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const payload = JSON.parse(Buffer.from(parts[1] as string, 'base64url').toString('utf8')) as {
      sub?: unknown;
    };
    return typeof payload.sub === 'string' ? payload.sub : null;
  } catch {
    return null;
  }
};
