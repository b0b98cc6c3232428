import { ApiError } from '../../domain/errors.ts';
import { getPlatform } from '../../domain/platforms/catalog.ts';
import { textLength } from '../../domain/platforms/text-length.ts';
import type { Platform, PlatformId, PlatformOption, TextCounting } from '../../domain/platforms/types.ts';
import type { Intent, MediaInfo, OptionValue } from '../../domain/post.ts';
import type { ChannelRecord } from '../../ports/channels.ts';
import { channelView } from '../channels/channel-view.ts';
import { parseInstant } from './instant.ts';
import type { PostBody, PostBodyBlock, PostBodyChannel } from './schema.ts';

// Its own module, so a route that only reads dates (GET /v1/posts) bundles none of the validation.
export { parseInstant };

/**
 * The network rules of a post body (spec 2.1, 4.1 "Rules for create", 8), checked before anything
 * is saved. Pure: everything it needs about the workspace arrives in `ctx`.
 *
 * The first error in this order is thrown (one error per response, `error.field` names it):
 *
 *  1. `scheduledAt`: required with intent `schedule`, refused with any other intent; then its
 *     shape, timezone, real date, and "strictly after now".
 *  2. Each channel in body order, completely, before the next one:
 *     a. `channelId`: exists in the workspace, not a repeat of an earlier channel, connected.
 *     b. `blocks` as a whole: a thread needs `maxBlocks > 1` and `continuationStatus` `available`
 *        (`thread_not_supported`), then the count against `maxBlocks` (`too_many_blocks`).
 *     c. Each block in order: empty block (or `media_required` instead when it is the first block
 *        of a network that needs a file), `content` length, each of `mediaIds` (exists, ready,
 *        not repeated, accepted type), the file count, `media_required` (first block), then
 *        `mediaAltText` (keyed by a media id of the block, at most 1000 characters).
 *     d. `title`, then `postType` and the block rules of that post type (stories and reels).
 *     e. `options`: each key sent, in the order sent (known, then type and value); then the
 *        required options missing, in the network's order; then rules between options.
 *  3. `tagIds`, in order.
 *
 * Decisions the spec leaves open:
 *  - Blank (empty or whitespace-only) content counts as absent and is stored as ''. A blank title
 *    also counts as absent: it is not refused on networks without titles and is stored as null.
 *  - On networks that take subtitle files (YouTube and Vimeo accept text/vtt and
 *    application/x-subrip next to their one video), subtitles are companions of the video: they
 *    do not count toward `maxMedia` nor satisfy `requiresMedia`, so a block holds at most one
 *    video plus its subtitle files, and subtitles alone are `media_required`. A network that
 *    does not list a subtitle type (TikTok) refuses it as `media_type_not_accepted`.
 *  - Seconds and fractional seconds of `scheduledAt` are optional; fractions beyond milliseconds
 *    are cut, not rounded. A leap second (:60) and hour 24 are `invalid_date`. `T` and `Z` are
 *    upper case. A missing timezone is reported before an impossible date.
 *  - Stories and reels (Instagram, Facebook) publish exactly one file from the first block: a
 *    reel one video, a story one image or video; a story takes no extra blocks (comments).
 *  - Empty text options and empty list items are `option_invalid`; a media option must name a
 *    ready file of the right kind (thumbnails and cover images are images).
 */

/** Everything the validator needs to know about the workspace, loaded by the caller. */
export interface ValidationContext {
  /** The workspace's channels by id. */
  channels: ReadonlyMap<string, ChannelRecord>;
  /** The workspace's media files by id. */
  media: ReadonlyMap<string, MediaInfo>;
  /** The workspace's tag ids. */
  tagIds: ReadonlySet<string>;
  now: Date;
}

export interface ValidatedBlock {
  /** '' when the block carries only media. */
  content: string;
  mediaIds: string[];
  mediaAltText: Record<string, string>;
}

export interface ValidatedChannel {
  channelId: string;
  platform: PlatformId;
  title: string | null;
  postType: string | null;
  options: Record<string, OptionValue>;
  blocks: ValidatedBlock[];
}

/** A post body that passed every rule, normalised for storage. */
export interface ValidatedPost {
  intent: Intent;
  /** UTC ISO 8601 with milliseconds; null unless intent is `schedule`. */
  scheduledAt: string | null;
  /** Without repeats, in the order first sent. */
  tagIds: string[];
  channels: ValidatedChannel[];
}

/** Longest alt text accepted per file, in code points (Pinterest's 500 and X's 1000 fit). */
export const MAX_ALT_TEXT_LENGTH = 1000;

/** Subtitle files: companions of the one video on the video networks that accept them. */
const SUBTITLE_TYPES: ReadonlySet<string> = new Set(['text/vtt', 'application/x-subrip']);

/**
 * Post types that publish exactly one file (from the first block), with the kinds of file they
 * take, and whether extra blocks (comments) are possible. Per the networks' APIs: a reel is one
 * video and can be commented; a story is one image or video and takes no comments.
 */
const SINGLE_FILE_POST_TYPES: Partial<
  Record<
    PlatformId,
    Record<string, { mimePrefixes: readonly string[]; extraBlocks: boolean; noText?: boolean }>
  >
> = {
  instagram: {
    reel: { mimePrefixes: ['video/'], extraBlocks: true },
    // Instagram stories have no caption: text would be lost.
    story: { mimePrefixes: ['image/', 'video/'], extraBlocks: false, noText: true },
  },
  facebook: {
    reel: { mimePrefixes: ['video/'], extraBlocks: true },
    story: { mimePrefixes: ['image/', 'video/'], extraBlocks: false },
  },
};

/** The file types a media option takes (thumbnails and cover images are images). */
const MEDIA_OPTION_TYPES: Partial<Record<PlatformId, Record<string, readonly string[]>>> = {
  youtube: { thumbnail: ['image/jpeg', 'image/png'] },
  pinterest: { coverImage: ['image/jpeg', 'image/png', 'image/webp', 'image/gif'] },
};

const codePoints = (text: string): number => textLength(text, 'codepoints');
const isBlank = (text: string | null | undefined): boolean => text == null || text.trim() === '';
const quoteList = (values: readonly string[]): string => values.map((v) => `"${v}"`).join(', ');

const COUNTING_WORDS: Record<TextCounting, string> = {
  weighted: 'weighted characters (a link counts 23, most CJK characters and emoji 2)',
  graphemes: 'characters (graphemes)',
  codepoints_emoji_bytes: 'characters (an emoji counts as its UTF-8 bytes)',
  codepoints: 'characters',
};

/**
 * Refuses text longer than block `index` may be on `platform` (`content_too_long` at `field`):
 * later blocks are held to `continuationMaxLength` where the network sets one (LinkedIn comments),
 * so a thread is refused before its first block goes out.
 */
export const checkContentLength = (content: string, platform: Platform, field: string, index = 0): void => {
  const { maxLength, textCounting, continuationMaxLength } = platform.limits;
  const length = textLength(content, textCounting);
  if (index > 0 && continuationMaxLength !== undefined && length > continuationMaxLength) {
    throw new ApiError(
      'content_too_long',
      `${platform.name} allows ${continuationMaxLength} ${COUNTING_WORDS[textCounting]} in a ${platform.limits.continuation ?? 'later block'} (every block after the first); this text has ${length}.`,
      field,
    );
  }
  if (length > maxLength) {
    throw new ApiError(
      'content_too_long',
      `${platform.name} allows ${maxLength} ${COUNTING_WORDS[textCounting]} per block; this text has ${length}.`,
      field,
    );
  }
  const { maxBytes } = platform.limits;
  const bytes = maxBytes === undefined ? 0 : Buffer.byteLength(content, 'utf8');
  if (maxBytes !== undefined && bytes > maxBytes) {
    throw new ApiError(
      'content_too_long',
      `${platform.name} allows at most ${maxBytes} bytes of text (UTF-8) per block; this text has ${bytes}.`,
      field,
    );
  }
};

// ---------------------------------------------------------------------------------------------
// scheduledAt

/** The `scheduledAt` rule for `intent`: null unless scheduling, else a future UTC ISO string. */
export const checkScheduledAt = (
  intent: Intent,
  value: string | null | undefined,
  now: Date,
): string | null => {
  const field = 'scheduledAt';
  if (intent !== 'schedule') {
    if (value != null) {
      throw new ApiError(
        'validation_failed',
        `scheduledAt is only for intent schedule; leave it out with intent ${intent}.`,
        field,
      );
    }
    return null;
  }
  if (value == null)
    throw new ApiError('validation_failed', 'scheduledAt is required with intent schedule.', field);
  const instant = parseInstant(value, field);
  if (instant.getTime() <= now.getTime()) {
    throw new ApiError(
      'schedule_in_past',
      `scheduledAt (${instant.toISOString()}) must be after the current time (${now.toISOString()}).`,
      field,
    );
  }
  return instant.toISOString();
};

// ---------------------------------------------------------------------------------------------
// channels

const platformOf = (record: ChannelRecord): Platform => {
  const platform = getPlatform(record.platform);
  // A stored channel always has a known platform; anything else is our bug, not the client's.
  if (!platform) throw new Error(`Channel ${record.channelId} has unknown platform ${record.platform}`);
  return platform;
};

const checkBlockCount = (
  blocks: readonly PostBodyBlock[],
  platform: Platform,
  record: ChannelRecord,
  path: string,
) => {
  const field = `${path}.blocks`;
  const { maxBlocks } = platform.limits;
  if (blocks.length > 1) {
    if (maxBlocks <= 1) {
      throw new ApiError(
        'thread_not_supported',
        `${platform.name} takes one block per post; threads and extra blocks are not possible.`,
        field,
      );
    }
    const status = channelView(record).continuationStatus;
    if (status !== 'available') {
      throw new ApiError(
        'thread_not_supported',
        `This channel cannot post threads (continuationStatus ${status}); send one block.`,
        field,
      );
    }
  }
  if (blocks.length > maxBlocks) {
    throw new ApiError(
      'too_many_blocks',
      `${platform.name} takes at most ${maxBlocks} blocks; ${blocks.length} were sent.`,
      field,
    );
  }
};

const checkMediaId = (
  id: string,
  seen: Set<string>,
  platform: Platform,
  ctx: ValidationContext,
  field: string,
): MediaInfo => {
  const media = ctx.media.get(id);
  if (!media) throw new ApiError('media_not_found', `Media ${id} does not exist in this workspace.`, field);
  if (media.status !== 'ready') {
    throw new ApiError('media_not_ready', `Media ${id} has not finished uploading.`, field);
  }
  if (seen.has(id)) throw new ApiError('validation_failed', `Media ${id} appears twice in the block.`, field);
  seen.add(id);
  if (!platform.limits.acceptedMimeTypes.includes(media.mimeType)) {
    throw new ApiError(
      'media_type_not_accepted',
      `${platform.name} does not accept ${media.mimeType} files; it takes ${platform.limits.acceptedMimeTypes.join(', ')}.`,
      field,
    );
  }
  const cap = platform.limits.maxMediaBytes?.[media.mimeType];
  if (cap !== undefined && media.size > cap) {
    throw new ApiError(
      'media_too_large',
      `${platform.name} takes ${media.mimeType} files of at most ${cap} bytes; ${id} has ${media.size}.`,
      field,
    );
  }
  return media;
};

/** Whether the file is a subtitle riding along with a video (see the header comment). */
const isCompanion = (media: MediaInfo, platform: Platform): boolean =>
  SUBTITLE_TYPES.has(media.mimeType) && platform.limits.acceptedMimeTypes.includes(media.mimeType);

const checkBlock = (
  block: PostBodyBlock,
  j: number,
  platform: Platform,
  ctx: ValidationContext,
  channelPath: string,
): { block: ValidatedBlock; media: MediaInfo[] } => {
  const path = `${channelPath}.blocks[${j}]`;
  const mediaIds = block.mediaIds ?? [];
  const content = isBlank(block.content) ? '' : (block.content as string);
  const { limits } = platform;
  const mustHaveFile = j === 0 && limits.requiresMedia;

  if (content === '' && mediaIds.length === 0) {
    if (mustHaveFile) {
      throw new ApiError(
        'media_required',
        `${platform.name} requires a file on the first block.`,
        `${path}.mediaIds`,
      );
    }
    throw new ApiError('block_empty', 'A block needs content, media or both.', path);
  }
  checkContentLength(content, platform, `${path}.content`, j);
  if (j > 0 && limits.continuationTextOnly && mediaIds.length > 0) {
    throw new ApiError(
      'media_type_not_accepted',
      `${platform.name} takes files on the first block only: the later blocks become ${limits.continuation ?? 'blocks'}s, which carry text only.`,
      `${path}.mediaIds`,
    );
  }

  const seen = new Set<string>();
  const media = mediaIds.map((id, k) => checkMediaId(id, seen, platform, ctx, `${path}.mediaIds[${k}]`));
  const later = j > 0 ? limits.continuationMedia : undefined;
  if (later) {
    const what = `${platform.name} ${limits.continuation ?? 'block'}s (the blocks after the first)`;
    const k = media.findIndex((file) => !later.acceptedMimeTypes.includes(file.mimeType));
    if (k >= 0) {
      throw new ApiError(
        'media_type_not_accepted',
        `${what} take ${later.acceptedMimeTypes.join(', ')} only; ${media[k]?.mediaId} is ${media[k]?.mimeType}.`,
        `${path}.mediaIds[${k}]`,
      );
    }
    if (media.length > later.maxMedia) {
      throw new ApiError(
        'too_many_media',
        `${what} take at most ${later.maxMedia} file${later.maxMedia === 1 ? '' : 's'}; ${media.length} were sent.`,
        `${path}.mediaIds`,
      );
    }
  }
  const counted = media.filter((file) => !isCompanion(file, platform));
  if (counted.length > limits.maxMedia) {
    const subtitles = counted.length === media.length ? '' : ' (subtitle files do not count)';
    throw new ApiError(
      'too_many_media',
      `${platform.name} takes at most ${limits.maxMedia} file${limits.maxMedia === 1 ? '' : 's'} per block${subtitles}; ${counted.length} were sent.`,
      `${path}.mediaIds`,
    );
  }
  const sole = counted.find((file) => limits.soleMediaTypes?.includes(file.mimeType));
  if (sole && counted.length > 1) {
    throw new ApiError(
      'too_many_media',
      `${platform.name} takes a ${sole.mimeType} file alone in its block, without other files.`,
      `${path}.mediaIds`,
    );
  }
  if (mustHaveFile && counted.length === 0) {
    const what = media.length > 0 ? 'a file other than subtitles' : 'a file';
    throw new ApiError(
      'media_required',
      `${platform.name} requires ${what} on the first block.`,
      `${path}.mediaIds`,
    );
  }

  const mediaAltText: Record<string, string> = {};
  for (const [id, text] of Object.entries(block.mediaAltText ?? {})) {
    const field = `${path}.mediaAltText.${id}`;
    if (!mediaIds.includes(id)) {
      throw new ApiError(
        'alt_text_without_media',
        `Alt text for ${id}, which is not in this block's mediaIds.`,
        field,
      );
    }
    const length = codePoints(text);
    if (length > MAX_ALT_TEXT_LENGTH) {
      throw new ApiError(
        'validation_failed',
        `Alt text may be at most ${MAX_ALT_TEXT_LENGTH} characters; this one has ${length}.`,
        field,
      );
    }
    // defineProperty, not assignment: an id such as "__proto__" must stay an ordinary key.
    Object.defineProperty(mediaAltText, id, {
      value: text,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { block: { content, mediaIds: [...mediaIds], mediaAltText }, media };
};

const checkTitle = (title: string | null | undefined, platform: Platform, field: string): string | null => {
  const rule = platform.limits.title;
  if (isBlank(title)) {
    if (rule?.required) throw new ApiError('title_required', `${platform.name} requires a title.`, field);
    return null;
  }
  const text = title as string;
  if (!rule) throw new ApiError('title_not_supported', `${platform.name} posts have no title.`, field);
  const length = codePoints(text);
  if (length > rule.maxLength) {
    throw new ApiError(
      'title_too_long',
      `${platform.name} allows titles of at most ${rule.maxLength} characters; this one has ${length}.`,
      field,
    );
  }
  return text;
};

const checkPostType = (
  postType: string | null | undefined,
  platform: Platform,
  field: string,
): string | null => {
  if (postType == null) return null;
  const keys = platform.postTypes.map((type) => type.key);
  if (!keys.includes(postType)) {
    const known = keys.length === 0 ? 'has no post types' : `has the post types ${quoteList(keys)}`;
    throw new ApiError('post_type_not_supported', `${platform.name} ${known}.`, field);
  }
  return postType;
};

/** Stories and reels publish one file of a given kind (see SINGLE_FILE_POST_TYPES). */
const checkPostTypeBlocks = (
  postType: string | null,
  platform: Platform,
  blocks: readonly ValidatedBlock[],
  firstMedia: readonly MediaInfo[],
  path: string,
) => {
  const rule = postType === null ? undefined : SINGLE_FILE_POST_TYPES[platform.id]?.[postType];
  if (!rule) return;
  const label = `A ${platform.name} ${postType}`;
  if (!rule.extraBlocks && blocks.length > 1) {
    throw new ApiError(
      'too_many_blocks',
      `${label} takes one block; it cannot have comments.`,
      `${path}.blocks`,
    );
  }
  if (rule.noText && !isBlank(blocks[0]?.content)) {
    // Its text limit is nothing at all.
    throw new ApiError(
      'content_too_long',
      `${label} carries no text (${platform.name} shows no caption on it): leave the content empty.`,
      `${path}.blocks[0].content`,
    );
  }
  const first = firstMedia[0];
  if (!first) throw new ApiError('media_required', `${label} needs one file.`, `${path}.blocks[0].mediaIds`);
  if (firstMedia.length > 1) {
    throw new ApiError('too_many_media', `${label} takes exactly one file.`, `${path}.blocks[0].mediaIds`);
  }
  if (!rule.mimePrefixes.some((prefix) => first.mimeType.startsWith(prefix))) {
    const kinds = rule.mimePrefixes.map((prefix) => prefix.replace('/', '')).join(' or ');
    throw new ApiError(
      'media_type_not_accepted',
      `${label} takes one ${kinds}, not ${first.mimeType}.`,
      `${path}.blocks[0].mediaIds[0]`,
    );
  }
};

const isHttpUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
};

const optionInvalid = (platform: Platform, option: PlatformOption, field: string, why: string) =>
  new ApiError('option_invalid', `${platform.name} option ${option.key} ${why}`, field);

const checkOptionValue = (
  option: PlatformOption,
  value: OptionValue,
  platform: Platform,
  ctx: ValidationContext,
  field: string,
): OptionValue => {
  if (option.type === 'list') {
    if (!Array.isArray(value)) throw optionInvalid(platform, option, field, 'must be an array of strings.');
    if (option.maxLength !== null && value.length > option.maxLength) {
      throw optionInvalid(
        platform,
        option,
        field,
        `takes at most ${option.maxLength} items; ${value.length} were sent.`,
      );
    }
    value.forEach((item, k) => {
      if (isBlank(item))
        throw optionInvalid(platform, option, `${field}[${k}]`, 'must not have empty items.');
      if (option.allowedValues !== null && !option.allowedValues.includes(item)) {
        throw optionInvalid(
          platform,
          option,
          `${field}[${k}]`,
          `items must be one of ${quoteList(option.allowedValues)}.`,
        );
      }
    });
    return [...value];
  }
  if (typeof value !== 'string') {
    const expected =
      option.type === 'boolean'
        ? 'must be the string "true" or "false"'
        : `must be a string (${option.type} option)`;
    throw optionInvalid(platform, option, field, `${expected}, not an array.`);
  }
  switch (option.type) {
    case 'boolean':
      if (value !== 'true' && value !== 'false') {
        throw optionInvalid(platform, option, field, 'must be the string "true" or "false".');
      }
      break;
    case 'choice':
      if (!(option.allowedValues ?? []).includes(value)) {
        throw optionInvalid(
          platform,
          option,
          field,
          `must be one of ${quoteList(option.allowedValues ?? [])}.`,
        );
      }
      break;
    case 'url':
      if (!isHttpUrl(value)) throw optionInvalid(platform, option, field, 'must be an absolute http(s) URL.');
      break;
    case 'text':
      if (isBlank(value)) throw optionInvalid(platform, option, field, 'must not be empty.');
      break;
    case 'media': {
      const media = ctx.media.get(value);
      if (!media)
        throw new ApiError('media_not_found', `Media ${value} does not exist in this workspace.`, field);
      if (media.status !== 'ready') {
        throw new ApiError('media_not_ready', `Media ${value} has not finished uploading.`, field);
      }
      const accepted = MEDIA_OPTION_TYPES[platform.id]?.[option.key];
      if (accepted && !accepted.includes(media.mimeType)) {
        throw new ApiError(
          'media_type_not_accepted',
          `${platform.name} option ${option.key} takes ${accepted.join(', ')}, not ${media.mimeType}.`,
          field,
        );
      }
      break;
    }
  }
  if ((option.type === 'text' || option.type === 'url') && option.maxLength !== null) {
    const length = codePoints(value);
    if (length > option.maxLength) {
      throw optionInvalid(
        platform,
        option,
        field,
        `may be at most ${option.maxLength} characters; it has ${length}.`,
      );
    }
  }
  return value;
};

/**
 * Rules between fields that the option list cannot say, taken from the options' descriptions:
 *  - instagram `shareToFeed` is for reels only; `collaborators` not for stories.
 *  - vimeo `password` is required when `privacy` is `password`, and refused with another privacy.
 *  - threads `linkAttachment` is for text-only posts (no file on the first block).
 *  - pinterest `coverImage` is for video pins (a video on the first block).
 */
const checkOptionCombinations = (
  platform: Platform,
  options: Readonly<Record<string, OptionValue>>,
  postType: string | null,
  firstMedia: readonly MediaInfo[],
  path: string,
) => {
  const has = (key: string) => Object.hasOwn(options, key);
  const field = (key: string) => `${path}.options.${key}`;
  const invalid = (key: string, why: string) =>
    new ApiError('option_invalid', `${platform.name} option ${key} ${why}`, field(key));
  switch (platform.id) {
    case 'instagram':
      if (has('shareToFeed') && postType !== 'reel') throw invalid('shareToFeed', 'applies to reels only.');
      if (has('collaborators') && postType === 'story')
        throw invalid('collaborators', 'does not apply to stories.');
      break;
    case 'vimeo':
      if (options.privacy === 'password' && !has('password')) {
        throw new ApiError(
          'option_required',
          'Vimeo needs a password when privacy is password.',
          field('password'),
        );
      }
      if (has('password') && has('privacy') && options.privacy !== 'password') {
        throw invalid('password', 'applies only when privacy is password.');
      }
      break;
    case 'threads':
      if (has('linkAttachment') && firstMedia.length > 0) {
        throw invalid('linkAttachment', 'applies to text-only posts; the first block has files.');
      }
      break;
    case 'pinterest':
      if (has('coverImage') && !firstMedia.some((media) => media.mimeType.startsWith('video/'))) {
        throw invalid('coverImage', 'applies to video pins only; the pin has no video.');
      }
      break;
  }
};

const checkOptions = (
  sent: Readonly<Record<string, OptionValue>>,
  platform: Platform,
  ctx: ValidationContext,
  path: string,
): Record<string, OptionValue> => {
  const options: Record<string, OptionValue> = {};
  for (const [key, value] of Object.entries(sent)) {
    const field = `${path}.options.${key}`;
    const option = platform.limits.options.find((candidate) => candidate.key === key);
    if (!option) {
      const known = platform.limits.options.map((candidate) => candidate.key);
      const list = known.length === 0 ? 'has no options' : `has the options ${quoteList(known)}`;
      throw new ApiError('option_not_supported', `${platform.name} ${list}; not ${key}.`, field);
    }
    options[key] = checkOptionValue(option, value, platform, ctx, field);
  }
  for (const option of platform.limits.options) {
    if (option.required && !Object.hasOwn(options, option.key)) {
      throw new ApiError(
        'option_required',
        `${platform.name} requires the option ${option.key}: ${option.description}`,
        `${path}.options.${option.key}`,
      );
    }
  }
  return options;
};

const checkChannel = (
  channel: PostBodyChannel,
  i: number,
  seen: Set<string>,
  ctx: ValidationContext,
): ValidatedChannel => {
  const path = `channels[${i}]`;
  const idField = `${path}.channelId`;
  const record = ctx.channels.get(channel.channelId);
  if (!record) {
    throw new ApiError(
      'channel_not_found',
      `Channel ${channel.channelId} does not exist in this workspace.`,
      idField,
    );
  }
  if (seen.has(channel.channelId)) {
    throw new ApiError('duplicate_channel', `Channel ${channel.channelId} appears more than once.`, idField);
  }
  seen.add(channel.channelId);
  if (record.connection === 'needs_reconnect') {
    throw new ApiError(
      'channel_disconnected',
      `Channel ${channel.channelId} must be reconnected before it can post.`,
      idField,
    );
  }
  const platform = platformOf(record);

  checkBlockCount(channel.blocks, platform, record, path);
  const checked = channel.blocks.map((block, j) => checkBlock(block, j, platform, ctx, path));
  const blocks = checked.map((entry) => entry.block);
  const firstMedia = checked[0]?.media ?? [];

  const title = checkTitle(channel.title, platform, `${path}.title`);
  const postType = checkPostType(channel.postType, platform, `${path}.postType`);
  checkPostTypeBlocks(postType, platform, blocks, firstMedia, path);

  const options = checkOptions(channel.options ?? {}, platform, ctx, path);
  checkOptionCombinations(platform, options, postType, firstMedia, path);

  return { channelId: channel.channelId, platform: platform.id, title, postType, options, blocks };
};

const checkTags = (tagIds: readonly string[], ctx: ValidationContext): string[] => {
  tagIds.forEach((id, k) => {
    if (!ctx.tagIds.has(id))
      throw new ApiError('tag_not_found', `Tag ${id} does not exist in this workspace.`, `tagIds[${k}]`);
  });
  return [...new Set(tagIds)];
};

/**
 * Checks a create (or full replace) body against the networks' rules and the workspace, in the
 * order documented at the top of this file; throws the first `ApiError`, else returns the post
 * normalised for storage.
 */
export const validatePost = (body: PostBody, ctx: ValidationContext): ValidatedPost => {
  const scheduledAt = checkScheduledAt(body.intent, body.scheduledAt, ctx.now);
  const seen = new Set<string>();
  const channels = body.channels.map((channel, i) => checkChannel(channel, i, seen, ctx));
  const tagIds = checkTags(body.tagIds ?? [], ctx);
  return { intent: body.intent, scheduledAt, tagIds, channels };
};
