import { randomBytes } from 'node:crypto';
import { objectOf, type SimContext, type SimResponse } from '../framework/framework.ts';
import { vimeoError, vimeoErrors } from './errors.ts';
import { filterFields, vimeoTime } from './fields.ts';
import type { SimVimeoVideo } from './records.ts';
import type { VimeoState } from './state.ts';

/** Videos: create (tus upload or pull), list, read, edit, delete. */
export const vimeoVideoRoutes = (s: VimeoState) => {
  const { videos, hosts, tuning, accountOf, seesPrivate, own, representation, links, privacyOf, textField } =
    s;

  const create = (ctx: SimContext): SimResponse => {
    const body = objectOf(ctx.body);
    if (!body) return vimeoErrors.badRequest('The body must be a JSON object.');
    const upload = objectOf(body.upload);
    if (upload?.approach !== 'tus') {
      return vimeoErrors.badRequest('upload.approach must be tus (the simulator serves tus uploads only).');
    }
    const size = upload.size;
    if (typeof size !== 'number' || !Number.isInteger(size) || size <= 0) {
      return vimeoError(
        400,
        2204,
        'The upload size is missing or invalid.',
        'upload.size must be a positive integer.',
      );
    }
    const name = textField(body, 'name', 128) ?? 'Untitled';
    const description = textField(body, 'description', 5000) ?? '';
    const { view, password } = privacyOf(body);
    if (view === 'password' && !password) {
      return vimeoErrors.badRequest('A password is required when privacy.view is password.');
    }
    const account = accountOf(ctx);
    if (tuning.freeSpaceBytes !== null) {
      const used = [...videos.values()]
        .filter((v) => v.account === account && !v.deleted)
        .reduce((sum, v) => sum + v.size, 0);
      if (used + size > tuning.freeSpaceBytes) {
        return vimeoError(
          403,
          4101,
          'The user doesn’t have enough free space to upload this video.',
          `The video needs ${size} bytes; the account has ${Math.max(0, tuning.freeSpaceBytes - used)} bytes free.`,
        );
      }
    }
    const lost = ctx.screen(description, account);
    const id = String(tuning.nextId++);
    const now = Date.now();
    const privacy = view ?? 'anybody';
    const video: SimVimeoVideo = {
      id,
      uri: `/videos/${id}`,
      link: `https://vimeo.com/${id}${privacy === 'unlisted' ? `/${randomBytes(5).toString('hex')}` : ''}`,
      account,
      name,
      description,
      privacy,
      password: privacy === 'password' ? password : null,
      createdTime: vimeoTime(now),
      modifiedTime: vimeoTime(now),
      size,
      received: 0,
      sha256: null,
      uploadStatus: 'in_progress',
      transcodeStatus: 'in_progress',
      transcodedAt: null,
      transcodeFails: false,
      tracks: [],
      deleted: false,
      uploadToken: '',
    };
    const opened = hosts.openUpload(
      size,
      (sha256) => {
        video.received = size;
        video.sha256 = sha256;
        video.uploadStatus = 'complete';
        video.transcodedAt = Date.now() + tuning.processingMs;
        video.transcodeFails = tuning.failTranscode;
        video.modifiedTime = vimeoTime(Date.now());
      },
      () => !video.deleted,
    );
    video.uploadToken = opened.token;
    links.set(id, opened.link);
    videos.set(id, video);
    ctx.record({ kind: 'post', id, parentId: null, rootId: null, text: description, account });
    return { status: 200, body: representation(video), lost };
  };

  const list = (ctx: SimContext): SimResponse => {
    const account = accountOf(ctx);
    const direction = ctx.query.get('direction') ?? 'desc';
    const perPage = Math.min(100, Math.max(1, Number(ctx.query.get('per_page') ?? 25) || 25));
    const page = Math.max(1, Number(ctx.query.get('page') ?? 1) || 1);
    const mine = [...videos.values()]
      .filter((v) => v.account === account && !v.deleted)
      // Without the `private` scope only public videos are listed (see requireScope).
      .filter((v) => v.privacy === 'anybody' || seesPrivate(ctx))
      .sort((a, b) =>
        a.createdTime === b.createdTime
          ? Number(a.id) - Number(b.id)
          : a.createdTime < b.createdTime
            ? -1
            : 1,
      );
    if (direction === 'desc') mine.reverse();
    const slice = mine.slice((page - 1) * perPage, page * perPage);
    const last = Math.max(1, Math.ceil(mine.length / perPage));
    const pageLink = (n: number) => `/me/videos?page=${n}&per_page=${perPage}`;
    return {
      status: 200,
      body: {
        total: mine.length,
        page,
        per_page: perPage,
        paging: {
          next: page < last ? pageLink(page + 1) : null,
          previous: page > 1 ? pageLink(page - 1) : null,
          first: pageLink(1),
          last: pageLink(last),
        },
        data: slice.map((video) => filterFields(representation(video), ctx.query.get('fields'))),
      },
    };
  };

  const read = (ctx: SimContext): SimResponse => ({
    status: 200,
    body: filterFields(representation(own(ctx)), ctx.query.get('fields')),
  });

  const edit = (ctx: SimContext): SimResponse => {
    const video = own(ctx);
    const body = objectOf(ctx.body);
    if (!body) return vimeoErrors.badRequest('The body must be a JSON object.');
    const name = textField(body, 'name', 128);
    const description = textField(body, 'description', 5000);
    const { view, password } = privacyOf(body);
    const privacy = view ?? video.privacy;
    if (privacy === 'password' && !(password ?? video.password)) {
      return vimeoErrors.badRequest('A password is required when privacy.view is password.');
    }
    if (name !== undefined) video.name = name;
    if (description !== undefined) video.description = description;
    video.privacy = privacy;
    video.password = privacy === 'password' ? (password ?? video.password) : null;
    video.modifiedTime = vimeoTime(Date.now());
    ctx.record({
      kind: 'edit',
      id: video.id,
      parentId: null,
      rootId: null,
      text: video.description,
      account: video.account,
    });
    return { status: 200, body: representation(video) };
  };

  const remove = (ctx: SimContext): SimResponse => {
    const video = own(ctx);
    video.deleted = true;
    ctx.record({
      kind: 'delete',
      id: video.id,
      parentId: null,
      rootId: null,
      text: null,
      account: video.account,
    });
    return { status: 204 };
  };

  return { create, list, read, edit, remove };
};
