import { describe, expect, it } from 'vitest';
import { getPlatform, isPlatformId, platforms } from '../../functions/domain/platforms/catalog.ts';
import { PLATFORM_IDS, type Platform, type PlatformId } from '../../functions/domain/platforms/types.ts';

/**
 * Spec section 8, "Per-network limits", copied word for word, one row per network, with the
 * network kind mapped to its API id. Kept independent of the rules files on purpose.
 */
// biome-ignore format: one spec row per line
const SPEC_TABLE: ReadonlyArray<{
  id: PlatformId;
  kind: string;
  textLimit: number;
  files: number | '1 video';
  needsFile: 'yes' | 'no';
  thread: 'up to 25 posts' | 'post + 2 comments' | 'post + 5 comments' | 'no';
  edit: 'no' | 'text' | 'text, title, options';
  retract: 'yes' | 'no';
  comments: 'yes' | 'no' | 'last 7 days';
}> = [
  { id: 'x', kind: 'short-post network', textLimit: 280, files: 4, needsFile: 'no', thread: 'up to 25 posts', edit: 'no', retract: 'yes', comments: 'last 7 days' },
  { id: 'linkedin', kind: 'professional network, profile', textLimit: 3000, files: 20, needsFile: 'no', thread: 'post + 2 comments', edit: 'text', retract: 'yes', comments: 'no' },
  { id: 'linkedin_page', kind: 'professional network, page', textLimit: 3000, files: 20, needsFile: 'no', thread: 'post + 2 comments', edit: 'text', retract: 'yes', comments: 'yes' },
  { id: 'instagram', kind: 'photo network', textLimit: 2200, files: 10, needsFile: 'yes', thread: 'post + 2 comments', edit: 'no', retract: 'no', comments: 'yes' },
  { id: 'facebook', kind: 'social network, page', textLimit: 63206, files: 10, needsFile: 'no', thread: 'post + 2 comments', edit: 'text', retract: 'yes', comments: 'yes' },
  { id: 'threads', kind: 'threaded text network', textLimit: 500, files: 20, needsFile: 'no', thread: 'up to 25 posts', edit: 'no', retract: 'yes', comments: 'no' },
  { id: 'tiktok', kind: 'short-video network', textLimit: 2200, files: '1 video', needsFile: 'yes', thread: 'no', edit: 'no', retract: 'no', comments: 'no' },
  { id: 'youtube', kind: 'video network', textLimit: 5000, files: '1 video', needsFile: 'yes', thread: 'no', edit: 'text, title, options', retract: 'yes', comments: 'yes' },
  { id: 'vimeo', kind: 'video hosting network', textLimit: 5000, files: '1 video', needsFile: 'yes', thread: 'no', edit: 'text, title, options', retract: 'yes', comments: 'no' },
  { id: 'pinterest', kind: 'pin-board network', textLimit: 800, files: 5, needsFile: 'yes', thread: 'no', edit: 'text, title, options', retract: 'yes', comments: 'no' },
  { id: 'bluesky', kind: 'decentralized microblog network', textLimit: 300, files: 4, needsFile: 'no', thread: 'up to 25 posts', edit: 'no', retract: 'yes', comments: 'yes' },
  { id: 'reddit', kind: 'forum network', textLimit: 10000, files: 20, needsFile: 'no', thread: 'post + 5 comments', edit: 'text', retract: 'yes', comments: 'yes' },
];

const THREAD_WORDS = {
  'up to 25 posts': { maxBlocks: 25, continuation: 'reply' },
  'post + 2 comments': { maxBlocks: 3, continuation: 'comment' },
  'post + 5 comments': { maxBlocks: 6, continuation: 'comment' },
  no: { maxBlocks: 1, continuation: null },
} as const;

const EDIT_WORDS = {
  no: null,
  text: ['text'],
  'text, title, options': ['text', 'title', 'options'],
} as const;

const COMMENT_WORDS = {
  yes: { commentsReadable: true, commentsWindowDays: null },
  no: { commentsReadable: false, commentsWindowDays: null },
  'last 7 days': { commentsReadable: true, commentsWindowDays: 7 },
} as const;

/** Spec section 8, media limits: the only file types the service accepts at all. */
const SPEC_MIME_TYPES = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'video/mp4',
  'video/quicktime',
  'application/pdf',
  'text/vtt',
  'application/x-subrip',
];
const SUBTITLE_TYPES = ['text/vtt', 'application/x-subrip'];

const TEXT_COUNTING: Record<PlatformId, Platform['limits']['textCounting']> = {
  x: 'weighted',
  linkedin: 'codepoints',
  linkedin_page: 'codepoints',
  instagram: 'codepoints',
  facebook: 'codepoints',
  threads: 'codepoints_emoji_bytes',
  tiktok: 'codepoints',
  youtube: 'codepoints',
  vimeo: 'codepoints',
  pinterest: 'codepoints',
  bluesky: 'graphemes',
  reddit: 'codepoints',
};

const TITLES: Record<PlatformId, Platform['limits']['title']> = {
  x: null,
  linkedin: null,
  linkedin_page: null,
  instagram: null,
  facebook: null,
  threads: null,
  tiktok: null,
  youtube: { required: true, maxLength: 100 },
  vimeo: { required: true, maxLength: 128 },
  pinterest: { required: false, maxLength: 100 },
  bluesky: null,
  reddit: { required: true, maxLength: 300 },
};

/** Option keys each network offers, and which of them must be sent. */
const OPTION_KEYS: Record<PlatformId, { all: string[]; required: string[] }> = {
  x: { all: ['replySettings'], required: [] },
  linkedin: { all: ['visibility'], required: [] },
  linkedin_page: { all: ['visibility'], required: [] },
  instagram: { all: ['shareToFeed', 'collaborators', 'locationId'], required: [] },
  facebook: { all: ['link'], required: [] },
  threads: { all: ['replyControl', 'linkAttachment'], required: [] },
  tiktok: { all: ['privacy', 'disableComment', 'disableDuet', 'disableStitch'], required: ['privacy'] },
  youtube: {
    all: ['privacy', 'madeForKids', 'tags', 'categoryId', 'thumbnail', 'captionLanguage'],
    required: [],
  },
  vimeo: { all: ['privacy', 'password'], required: [] },
  pinterest: { all: ['boardId', 'link', 'altText', 'coverImage'], required: ['boardId'] },
  bluesky: { all: ['languages'], required: [] },
  reddit: { all: ['subreddit', 'flairId', 'flairText', 'nsfw', 'spoiler', 'link'], required: ['subreddit'] },
};

const POST_TYPE_KEYS: Record<PlatformId, string[]> = {
  x: [],
  linkedin: [],
  linkedin_page: [],
  instagram: ['post', 'reel', 'story'],
  facebook: ['post', 'reel', 'story'],
  threads: [],
  tiktok: [],
  youtube: [],
  vimeo: [],
  pinterest: [],
  bluesky: [],
  reddit: [],
};

const byId = (id: PlatformId): Platform => {
  const found = platforms.find((p) => p.id === id);
  if (!found) throw new Error(`platform ${id} missing from the catalog`);
  return found;
};

const isVideo = (type: string) => type.startsWith('video/');
const isVisualMedia = (type: string) =>
  type.startsWith('image/') || isVideo(type) || type === 'application/pdf';

describe('catalog', () => {
  it('lists every platform once, in PLATFORM_IDS order', () => {
    expect(platforms.map((p) => p.id)).toEqual([...PLATFORM_IDS]);
  });

  it('has a row of the spec table for every platform and nothing else', () => {
    expect(SPEC_TABLE.map((row) => row.id)).toEqual([...PLATFORM_IDS]);
  });

  it('getPlatform returns the catalog entry for each id', () => {
    for (const p of platforms) expect(getPlatform(p.id)).toBe(p);
  });

  it.each(['', 'X', 'twitter', 'linkedin-page', 'toString', '__proto__', 'constructor', ' x'])(
    'getPlatform and isPlatformId refuse %j',
    (id) => {
      expect(getPlatform(id)).toBeUndefined();
      expect(isPlatformId(id)).toBe(false);
    },
  );

  it('isPlatformId accepts every listed id', () => {
    for (const id of PLATFORM_IDS) expect(isPlatformId(id)).toBe(true);
  });

  it('gives every platform a distinct, non-empty brand name', () => {
    const names = platforms.map((p) => p.name);
    for (const name of names) expect(name.trim()).not.toBe('');
    expect(new Set(names).size).toBe(names.length);
  });

  it('uses the expected brand names', () => {
    expect(Object.fromEntries(platforms.map((p) => [p.id, p.name]))).toEqual({
      x: 'X',
      linkedin: 'LinkedIn',
      linkedin_page: 'LinkedIn Page',
      instagram: 'Instagram',
      facebook: 'Facebook',
      threads: 'Threads',
      tiktok: 'TikTok',
      youtube: 'YouTube',
      vimeo: 'Vimeo',
      pinterest: 'Pinterest',
      bluesky: 'Bluesky',
      reddit: 'Reddit',
    });
  });

  it('survives a JSON round trip unchanged, as GET /v1/platforms serves it', () => {
    expect(JSON.parse(JSON.stringify(platforms))).toEqual(platforms);
  });

  it('is frozen all the way down', () => {
    const x = byId('x');
    expect(Object.isFrozen(platforms)).toBe(true);
    expect(Object.isFrozen(x.limits)).toBe(true);
    expect(Object.isFrozen(x.limits.acceptedMimeTypes)).toBe(true);
    expect(() => (x.limits.acceptedMimeTypes as string[]).push('image/bmp')).toThrow(TypeError);
    expect(() => {
      (x.limits as { maxLength: number }).maxLength = 1;
    }).toThrow(TypeError);
  });
});

describe.each(SPEC_TABLE)('$id matches spec section 8', (row) => {
  const p = byId(row.id);

  it('kind', () => expect(p.kind).toBe(row.kind));
  it('text limit', () => expect(p.limits.maxLength).toBe(row.textLimit));

  it('files per post', () => {
    expect(p.limits.maxMedia).toBe(row.files === '1 video' ? 1 : row.files);
    if (row.files === '1 video') {
      expect(p.limits.acceptedMimeTypes.some(isVideo)).toBe(true);
      for (const type of p.limits.acceptedMimeTypes)
        expect(isVideo(type) || SUBTITLE_TYPES.includes(type)).toBe(true);
    }
  });

  it('needs a file', () => expect(p.limits.requiresMedia).toBe(row.needsFile === 'yes'));

  it('thread / extra blocks', () => {
    expect({ maxBlocks: p.limits.maxBlocks, continuation: p.limits.continuation }).toEqual(
      THREAD_WORDS[row.thread],
    );
  });

  it('edit after publish', () => expect(p.limits.remoteEdit).toEqual(EDIT_WORDS[row.edit]));
  it('delete after publish', () => expect(p.limits.supportsRemoteDelete).toBe(row.retract === 'yes'));

  it('comments readable', () => {
    expect({
      commentsReadable: p.limits.commentsReadable,
      commentsWindowDays: p.limits.commentsWindowDays,
    }).toEqual(COMMENT_WORDS[row.comments]);
  });
});

describe.each(platforms.map((p) => [p.id, p] as const))('%s rules are consistent', (id, p) => {
  it('counts text the way the network does', () => expect(p.limits.textCounting).toBe(TEXT_COUNTING[id]));

  it('has the expected title rule', () => expect(p.limits.title).toEqual(TITLES[id]));

  it('gives a title a positive integer maxLength', () => {
    if (p.limits.title !== null) {
      expect(Number.isInteger(p.limits.title.maxLength)).toBe(true);
      expect(p.limits.title.maxLength).toBeGreaterThan(0);
    }
  });

  it('has positive integer text and file limits', () => {
    for (const n of [p.limits.maxLength, p.limits.maxBlocks, p.limits.maxMedia]) {
      expect(Number.isInteger(n)).toBe(true);
      expect(n).toBeGreaterThan(0);
    }
  });

  it('has a continuation exactly when it allows more than one block', () => {
    expect(p.limits.continuation === null).toBe(p.limits.maxBlocks === 1);
  });

  it('has a comment window only when comments are readable', () => {
    if (!p.limits.commentsReadable) expect(p.limits.commentsWindowDays).toBeNull();
    if (p.limits.commentsWindowDays !== null) expect(p.limits.commentsWindowDays).toBeGreaterThan(0);
  });

  it('accepts only media types from the spec, each once', () => {
    const types = p.limits.acceptedMimeTypes;
    expect(types.length).toBeGreaterThan(0);
    for (const type of types) expect(SPEC_MIME_TYPES).toContain(type);
    expect(new Set(types).size).toBe(types.length);
  });

  it('accepts a real image, video or document when it requires a file', () => {
    if (p.limits.requiresMedia) expect(p.limits.acceptedMimeTypes.some(isVisualMedia)).toBe(true);
  });

  it('only lists remote-edit fields it has', () => {
    const edit = p.limits.remoteEdit;
    if (edit === null) return;
    expect(edit.length).toBeGreaterThan(0);
    expect(new Set(edit).size).toBe(edit.length);
    if (edit.includes('title')) expect(p.limits.title).not.toBeNull();
    if (edit.includes('options')) expect(p.limits.options.length).toBeGreaterThan(0);
  });

  it('offers the expected option keys, required where expected', () => {
    const options = p.limits.options;
    expect(options.map((o) => o.key)).toEqual(OPTION_KEYS[id].all);
    expect(options.filter((o) => o.required).map((o) => o.key)).toEqual(OPTION_KEYS[id].required);
  });

  it('has unique camelCase option keys with descriptions', () => {
    const keys = p.limits.options.map((o) => o.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const o of p.limits.options) {
      expect(o.key).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(o.description.trim().length).toBeGreaterThan(10);
    }
  });

  it('gives choice options their values, and only them', () => {
    for (const o of p.limits.options) {
      if (o.type === 'choice') {
        expect(o.allowedValues, o.key).not.toBeNull();
        const values = o.allowedValues ?? [];
        expect(values.length, o.key).toBeGreaterThan(1);
        expect(new Set(values).size, o.key).toBe(values.length);
        for (const v of values) expect(v.trim(), o.key).toBe(v);
      } else if (o.type !== 'list') {
        expect(o.allowedValues, o.key).toBeNull();
      }
    }
  });

  it('puts maxLength only on text, url and list options', () => {
    for (const o of p.limits.options) {
      if (o.type === 'boolean' || o.type === 'choice' || o.type === 'media')
        expect(o.maxLength, o.key).toBeNull();
      if (o.maxLength !== null) {
        expect(Number.isInteger(o.maxLength), o.key).toBe(true);
        expect(o.maxLength, o.key).toBeGreaterThan(0);
      }
    }
  });

  it('has the expected post types, each with a unique key, name and description', () => {
    expect(p.postTypes.map((t) => t.key)).toEqual(POST_TYPE_KEYS[id]);
    const keys = p.postTypes.map((t) => t.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const t of p.postTypes) {
      expect(t.key).toMatch(/^[a-z][a-z_]*$/);
      expect(t.name.trim()).not.toBe('');
      expect(t.description.trim()).not.toBe('');
    }
  });
});

describe('network-specific choices', () => {
  it('TikTok privacy uses the Content Posting API privacy_level values', () => {
    const privacy = byId('tiktok').limits.options.find((o) => o.key === 'privacy');
    expect(privacy?.allowedValues).toEqual([
      'PUBLIC_TO_EVERYONE',
      'MUTUAL_FOLLOW_FRIENDS',
      'FOLLOWER_OF_CREATOR',
      'SELF_ONLY',
    ]);
  });

  it('YouTube privacy uses status.privacyStatus values', () => {
    const privacy = byId('youtube').limits.options.find((o) => o.key === 'privacy');
    expect(privacy?.allowedValues).toEqual(['public', 'unlisted', 'private']);
  });

  it('YouTube and Vimeo take caption files; TikTok does not', () => {
    for (const id of ['youtube', 'vimeo'] as const) {
      expect(byId(id).limits.acceptedMimeTypes).toEqual(expect.arrayContaining(SUBTITLE_TYPES));
    }
    for (const type of SUBTITLE_TYPES) expect(byId('tiktok').limits.acceptedMimeTypes).not.toContain(type);
  });

  it('only LinkedIn takes PDF documents', () => {
    const withPdf = platforms
      .filter((p) => p.limits.acceptedMimeTypes.includes('application/pdf'))
      .map((p) => p.id);
    expect(withPdf).toEqual(['linkedin', 'linkedin_page']);
  });

  it('the LinkedIn page cannot restrict a post to connections', () => {
    const visibility = byId('linkedin_page').limits.options.find((o) => o.key === 'visibility');
    expect(visibility?.allowedValues).not.toContain('CONNECTIONS');
    expect(byId('linkedin').limits.options.find((o) => o.key === 'visibility')?.allowedValues).toContain(
      'CONNECTIONS',
    );
  });

  it('Bluesky languages and Instagram collaborators are capped at 3', () => {
    expect(byId('bluesky').limits.options.find((o) => o.key === 'languages')?.maxLength).toBe(3);
    expect(byId('instagram').limits.options.find((o) => o.key === 'collaborators')?.maxLength).toBe(3);
  });
});
