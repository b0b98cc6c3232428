import { objectOf, type SimContext, SimHttpError } from '../framework/framework.ts';
import { simulatorMetrics } from '../framework/metrics.ts';
import { pinError, simPinterestUserFor } from './errors.ts';
import { LINK_MAX, pullImage } from './media-files.ts';
import { pinterestOAuthSimulator, simPinterestBoards } from './oauth.ts';
import type { SimPin, SimPinImage, SimPinterestMedia } from './records.ts';
import type { PinterestSimulatorOptions, PinterestSwitches } from './switches.ts';

/** The Pinterest simulator's in-memory users: pins, media, boards, switches, and the checks and views every route shares. */
export const pinterestState = (options: PinterestSimulatorOptions) => {
  const oauth = pinterestOAuthSimulator(options.oauth);
  const pins = new Map<string, SimPin>();
  const media = new Map<string, SimPinterestMedia>();
  /** Every board handed out, with its owner: a board of another user is refused with 403. */
  const boardOwners = new Map<string, string>();
  const switches: Required<PinterestSwitches> = {
    dailyLimitSeconds: 0,
    processingFails: false,
    processingMs: 300,
    uploadLifetimeSeconds: 3600,
  };
  /** What changes while it runs: its base URL (known once it listens), and until when the daily cap is spent. */
  const site = { baseUrl: '', dailyLimitedUntil: 0 };
  const setSwitches = (next: PinterestSwitches) => {
    if (next.processingFails !== undefined) switches.processingFails = next.processingFails;
    if (next.processingMs !== undefined) switches.processingMs = next.processingMs;
    if (next.uploadLifetimeSeconds !== undefined) switches.uploadLifetimeSeconds = next.uploadLifetimeSeconds;
    if (next.dailyLimitSeconds !== undefined) {
      switches.dailyLimitSeconds = next.dailyLimitSeconds;
      site.dailyLimitedUntil = next.dailyLimitSeconds > 0 ? Date.now() + next.dailyLimitSeconds * 1000 : 0;
    }
  };
  setSwitches(options.switches ?? {});

  const userOf = (ctx: SimContext): { id: string; username: string; scopes?: string[] } => {
    const token = ctx.token as string;
    return oauth.accountOf(token) ?? simPinterestUserFor(token);
  };
  /** Tokens the OAuth half issued carry their scopes; Pinterest refuses a call the grant lacks (403, code 3). */
  const requireScope = (ctx: SimContext, scope: string) => {
    const user = userOf(ctx);
    if (user.scopes && !user.scopes.includes(scope)) {
      throw new SimHttpError(pinError(403, 3, `Not authorized: this token lacks the ${scope} scope.`));
    }
    return user;
  };
  const boardsOf = (userId: string) => {
    const boards = simPinterestBoards(userId);
    for (const board of boards) boardOwners.set(board.id, userId);
    return boards;
  };

  /** The user's own board, or Pinterest's 404/403. */
  const ownBoard = (boardId: unknown, userId: string): string => {
    if (typeof boardId !== 'string' || !/^\d+$/.test(boardId)) {
      throw new SimHttpError(pinError(400, 1, 'Invalid request: board_id must be a string of digits.'));
    }
    if (boardsOf(userId).some((board) => board.id === boardId)) return boardId;
    if (boardOwners.has(boardId)) {
      throw new SimHttpError(pinError(403, 29, 'You are not permitted to access that resource.'));
    }
    throw new SimHttpError(pinError(404, 404, 'Board not found.'));
  };

  const textField = (body: Record<string, unknown>, key: string, max: number): string | null => {
    const value = body[key];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string')
      throw new SimHttpError(pinError(400, 1, `Invalid request: ${key} must be a string.`));
    if ([...value].length > max) {
      throw new SimHttpError(pinError(400, 1, `Invalid request: ${key} must be at most ${max} characters.`));
    }
    return value;
  };

  const linkField = (body: Record<string, unknown>) => {
    const link = textField(body, 'link', LINK_MAX);
    if (link !== null && !/^https?:\/\/[^\s]+$/i.test(link)) {
      throw new SimHttpError(pinError(400, 1, 'Invalid request: link must be a valid http(s) URL.'));
    }
    return link;
  };

  const settle = (item: SimPinterestMedia) => {
    if (item.status === 'processing' && item.readyAt !== null && Date.now() >= item.readyAt) {
      item.status = item.failing ? 'failed' : 'succeeded';
    }
    return item;
  };

  const mediaSource = async (raw: unknown, userId: string): Promise<SimPin['media']> => {
    const source = objectOf(raw);
    if (!source) throw new SimHttpError(pinError(400, 1, 'Invalid request: media_source is required.'));
    switch (source.source_type) {
      case 'image_url':
        return { type: 'image', images: [await pullImage(source.url, 'media_source.url')] };
      case 'multiple_image_urls': {
        const items = source.items;
        if (!Array.isArray(items) || items.length < 2 || items.length > 5) {
          throw new SimHttpError(
            pinError(400, 1, 'Invalid request: media_source.items must have between 2 and 5 images.'),
          );
        }
        const images: SimPinImage[] = [];
        for (const [i, item] of items.entries()) {
          images.push(await pullImage(objectOf(item)?.url, `media_source.items[${i}].url`));
        }
        return { type: 'multiple_images', images };
      }
      case 'video_id': {
        const id = source.media_id;
        const item = typeof id === 'string' ? media.get(id) : undefined;
        if (!item || item.owner !== userId) {
          throw new SimHttpError(pinError(404, 404, 'Media not found.'));
        }
        settle(item);
        if (item.status !== 'succeeded') {
          throw new SimHttpError(
            pinError(400, 1, `Invalid request: the video upload is ${item.status}, not succeeded.`),
          );
        }
        const frame = source.cover_image_key_frame_time;
        if (frame !== undefined && (typeof frame !== 'number' || !Number.isInteger(frame) || frame < 0)) {
          throw new SimHttpError(
            pinError(
              400,
              1,
              'Invalid request: cover_image_key_frame_time must be a whole number of seconds.',
            ),
          );
        }
        if (source.cover_image_url === undefined && frame === undefined) {
          throw new SimHttpError(
            pinError(
              400,
              1,
              'Invalid request: a video Pin needs cover_image_url or cover_image_key_frame_time.',
            ),
          );
        }
        const cover =
          source.cover_image_url === undefined
            ? null
            : await pullImage(source.cover_image_url, 'media_source.cover_image_url');
        return {
          type: 'video',
          mediaId: item.mediaId,
          cover,
          coverKeyFrameTime: typeof frame === 'number' ? frame : null,
        };
      }
      default:
        throw new SimHttpError(
          pinError(
            400,
            1,
            `Invalid request: media_source.source_type ${String(source.source_type)} is not supported.`,
          ),
        );
    }
  };

  const pinView = (pin: SimPin, withMetrics = false) => ({
    id: pin.id,
    created_at: pin.createdAt,
    link: pin.link,
    title: pin.title,
    description: pin.description,
    dominant_color: '#6E7874',
    alt_text: pin.altText,
    creative_type:
      pin.media.type === 'video' ? 'VIDEO' : pin.media.type === 'multiple_images' ? 'CAROUSEL' : 'REGULAR',
    board_id: pin.boardId,
    board_section_id: pin.boardSectionId,
    board_owner: { username: pin.owner },
    is_owner: true,
    is_standard: true,
    has_been_promoted: false,
    parent_pin_id: null,
    media:
      pin.media.type === 'video'
        ? { media_type: 'video', cover_image_url: pin.media.cover?.url ?? null }
        : pin.media.type === 'image'
          ? { media_type: 'image', images: { originals: { url: pin.media.images[0]?.url } } }
          : { media_type: 'multiple_images', items: pin.media.images.map((image) => ({ url: image.url })) },
    ...(withMetrics ? { pin_metrics: { lifetime_metrics: lifetimeOf(pin) } } : {}),
  });

  const countsOf = (pin: SimPin) => simulatorMetrics('pinterest', pin.id, new Date(pin.createdAt));
  const lifetimeOf = (pin: SimPin) => {
    const m = countsOf(pin);
    return { impression: m.impressions ?? 0, save: m.saves ?? 0, pin_click: m.clicks ?? 0 };
  };

  const livePin = (ctx: SimContext): SimPin => {
    const pin = pins.get(ctx.params.id as string);
    if (!pin || pin.deleted) throw new SimHttpError(pinError(404, 404, 'Pin not found.'));
    if (pin.owner !== userOf(ctx).id) {
      throw new SimHttpError(pinError(403, 29, 'You are not permitted to access that resource.'));
    }
    return pin;
  };

  return {
    oauth,
    pins,
    media,
    boardOwners,
    switches,
    site,
    setSwitches,
    userOf,
    requireScope,
    boardsOf,
    ownBoard,
    textField,
    linkField,
    settle,
    mediaSource,
    pinView,
    countsOf,
    lifetimeOf,
    livePin,
  };
};

export type PinterestState = ReturnType<typeof pinterestState>;
