import { objectOf, type SimContext, type SimResponse } from '../framework/framework.ts';
import { pinError, pinterestErrors, rateLimited } from './errors.ts';
import { ALT_MAX, DESCRIPTION_MAX, pinId, TITLE_MAX } from './media-files.ts';
import type { SimPin } from './records.ts';
import type { PinterestState } from './state.ts';

/** Pins and boards: create, update, delete, list (a user's, a board's), the user's boards. */
export const pinterestPinRoutes = (s: PinterestState) => {
  const {
    pins,
    media,
    site,
    userOf,
    requireScope,
    boardsOf,
    ownBoard,
    textField,
    linkField,
    mediaSource,
    pinView,
    livePin,
  } = s;

  const createPin = async (ctx: SimContext): Promise<SimResponse> => {
    if (Date.now() < site.dailyLimitedUntil) return rateLimited((site.dailyLimitedUntil - Date.now()) / 1000);
    const body = objectOf(ctx.body);
    if (!body) return pinterestErrors.badRequest('Invalid request: the body must be a JSON object.');
    const user = requireScope(ctx, 'pins:write');
    const boardId = ownBoard(body.board_id, user.id);
    const boardSectionId = body.board_section_id;
    if (boardSectionId !== undefined && boardSectionId !== null) {
      return pinError(404, 404, 'Board section not found.');
    }
    const title = textField(body, 'title', TITLE_MAX);
    const description = textField(body, 'description', DESCRIPTION_MAX);
    const altText = textField(body, 'alt_text', ALT_MAX);
    const link = linkField(body);
    // Sim tokens act on the pin's text before Pinterest does any work on it.
    const lost = ctx.screen(description ?? title ?? '', user.id);
    const source = await mediaSource(body.media_source, user.id);
    const pin: SimPin = {
      id: pinId(),
      owner: user.id,
      boardId,
      boardSectionId: null,
      title,
      description,
      link,
      altText,
      createdAt: new Date().toISOString(),
      deleted: false,
      media: source,
    };
    pins.set(pin.id, pin);
    if (source.type === 'video') media.get(source.mediaId)?.pins.push(pin.id);
    ctx.record({
      kind: 'post',
      id: pin.id,
      parentId: null,
      rootId: null,
      text: description,
      account: user.id,
    });
    return { status: 201, body: pinView(pin), lost };
  };

  const updatePin = (ctx: SimContext): SimResponse => {
    const pin = livePin(ctx);
    const body = objectOf(ctx.body);
    if (!body) return pinterestErrors.badRequest('Invalid request: the body must be a JSON object.');
    const known = [
      'title',
      'description',
      'link',
      'alt_text',
      'board_id',
      'board_section_id',
      'carousel_slots',
    ];
    const unknown = Object.keys(body).find((key) => !known.includes(key));
    if (unknown) return pinterestErrors.badRequest(`Invalid request: ${unknown} cannot be updated.`);
    const next = {
      title: 'title' in body ? textField(body, 'title', TITLE_MAX) : pin.title,
      description: 'description' in body ? textField(body, 'description', DESCRIPTION_MAX) : pin.description,
      altText: 'alt_text' in body ? textField(body, 'alt_text', ALT_MAX) : pin.altText,
      link: 'link' in body ? linkField(body) : pin.link,
      boardId: body.board_id !== undefined ? ownBoard(body.board_id, pin.owner) : pin.boardId,
    };
    const lost = ctx.screen(next.description ?? next.title ?? '', pin.owner);
    Object.assign(pin, next);
    ctx.record({
      kind: 'edit',
      id: pin.id,
      parentId: null,
      rootId: null,
      text: pin.description,
      account: pin.owner,
    });
    return { status: 200, body: pinView(pin), lost };
  };

  const deletePin = (ctx: SimContext): SimResponse => {
    const pin = livePin(ctx);
    pin.deleted = true;
    ctx.record({ kind: 'delete', id: pin.id, parentId: null, rootId: null, text: null, account: pin.owner });
    return { status: 204 };
  };

  /** A page of pins, newest first, with Pinterest's `bookmark` cursor. */
  const page = (ctx: SimContext, list: SimPin[]): SimResponse => {
    const size = Number(ctx.query.get('page_size') ?? 25);
    if (!Number.isInteger(size) || size < 1 || size > 250) {
      return pinterestErrors.badRequest('Invalid request: page_size must be between 1 and 250.');
    }
    const bookmark = ctx.query.get('bookmark');
    const start = bookmark ? Number(Buffer.from(bookmark, 'base64url').toString('utf8')) : 0;
    if (!Number.isInteger(start) || start < 0)
      return pinterestErrors.badRequest('Invalid request: bad bookmark.');
    const sorted = [...list].sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    const withMetrics = ctx.query.get('pin_metrics') === 'true';
    const items = sorted.slice(start, start + size).map((pin) => pinView(pin, withMetrics));
    const more = start + size < sorted.length;
    return {
      status: 200,
      body: { items, bookmark: more ? Buffer.from(String(start + size)).toString('base64url') : null },
    };
  };

  const listPins = (ctx: SimContext) => {
    const user = userOf(ctx).id;
    return page(
      ctx,
      [...pins.values()].filter((pin) => !pin.deleted && pin.owner === user),
    );
  };

  const boardPins = (ctx: SimContext) => {
    const user = userOf(ctx).id;
    const boardId = ownBoard(ctx.params.board_id, user);
    return page(
      ctx,
      [...pins.values()].filter((pin) => !pin.deleted && pin.boardId === boardId),
    );
  };

  const listBoards = (ctx: SimContext): SimResponse => {
    const user = requireScope(ctx, 'boards:read');
    const items = boardsOf(user.id).map((board) => ({
      ...board,
      description: '',
      privacy: 'PUBLIC',
      owner: { username: user.username },
    }));
    return { status: 200, body: { items, bookmark: null } };
  };

  return { createPin, updatePin, deletePin, listPins, boardPins, listBoards };
};
