import { headerOf, objectOf, type SimRoute } from '../framework/framework.ts';
import { googleError } from './errors.ts';
import type { YouTubeState } from './state.ts';

/** `videos`: uploads (multipart and resumable), insert, list, update, delete. */
export const youtubeVideoRoutes = (s: YouTubeState): SimRoute[] => {
  const {
    options,
    videos,
    live,
    oauth,
    audit,
    requireScope,
    channelOf,
    resourceOf,
    metadataOf,
    uploads,
    ownVideo,
  } = s;
  return [
    {
      method: 'POST',
      path: '/upload/youtube/v3/videos',
      handler: (ctx) => {
        live.record = ctx.record;
        requireScope(ctx, 'videos.insert');
        const channel = channelOf(ctx);
        if (ctx.query.get('uploadType') !== 'resumable')
          return googleError(400, 'badRequest', 'Herald sends videos with uploadType=resumable only.');
        const parts = (ctx.query.get('part') ?? '').split(',');
        if (!parts.includes('snippet') || !parts.includes('status'))
          return googleError(400, 'unexpectedPart', 'The part parameter must name snippet and status.');
        const size = Number(headerOf(ctx.headers, 'x-upload-content-length'));
        if (!Number.isInteger(size) || size <= 0)
          return googleError(400, 'badRequest', 'X-Upload-Content-Length must be the size of the video.');
        const type = headerOf(ctx.headers, 'x-upload-content-type') ?? 'application/octet-stream';
        if (!/^video\/|^application\/octet-stream$/.test(type))
          return googleError(400, 'invalidContentType', `Media type '${type}' is not supported.`);
        const meta = metadataOf(ctx.body, false);
        const lose = ctx.screen(`${meta.title}\n${meta.description}`, channel.id);
        const session = uploads.open(channel.id, objectOf(ctx.body) ?? {}, size, type, lose);
        audit.opened(session.id, oauth.scopesOf(ctx.token ?? '') !== null);
        const host = headerOf(ctx.headers, 'host') ?? '127.0.0.1';
        return {
          status: 200,
          headers: {
            location: `http://${host}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status&upload_id=${session.id}`,
            'x-guploader-uploadid': session.id,
          },
        };
      },
    },
    {
      method: 'PUT',
      path: '/upload/youtube/v3/videos',
      // The session URI is the credential; chunks may be large.
      auth: false,
      rawBody: true,
      maxBodyBytes: options.maxChunkBytes ?? 64 * 1024 * 1024,
      handler: (ctx) => {
        live.record = ctx.record;
        return uploads.put(ctx);
      },
    },
    {
      method: 'GET',
      path: '/youtube/v3/videos',
      handler: (ctx) => {
        requireScope(ctx, 'videos.list');
        channelOf(ctx);
        const parts = (ctx.query.get('part') ?? '').split(',');
        const ids = (ctx.query.get('id') ?? '').split(',').filter((id) => id !== '');
        if (ids.length === 0) return googleError(400, 'missingRequiredParameter', 'No filter selected.');
        const items = ids.filter((id) => videos.has(id)).map((id) => resourceOf(id, parts));
        return {
          status: 200,
          body: {
            kind: 'youtube#videoListResponse',
            items,
            pageInfo: { totalResults: items.length, resultsPerPage: items.length },
          },
        };
      },
    },
    {
      method: 'PUT',
      path: '/youtube/v3/videos',
      handler: (ctx) => {
        requireScope(ctx, 'videos.update');
        const channel = channelOf(ctx);
        const parts = (ctx.query.get('part') ?? '').split(',');
        const body = objectOf(ctx.body);
        const video = ownVideo(ctx, typeof body?.id === 'string' ? body.id : null, channel.id);
        if (!parts.includes('snippet'))
          return googleError(400, 'unexpectedPart', 'Herald updates snippet and status together.');
        const meta = metadataOf(body, true);
        const lose = ctx.screen(`${meta.title}\n${meta.description}`, channel.id);
        // The whole snippet is replaced: what the request leaves out is gone.
        video.title = meta.title;
        video.description = meta.description;
        video.tags = meta.tags;
        video.categoryId = meta.categoryId;
        if (parts.includes('status')) {
          // A video locked to private stays private (audit-simulator.ts).
          video.requestedPrivacyStatus = meta.privacyStatus;
          video.privacyStatus = video.privacyLocked ? 'private' : meta.privacyStatus;
          video.madeForKids = meta.madeForKids;
        }
        ctx.record({
          kind: 'edit',
          id: video.id,
          parentId: null,
          rootId: null,
          text: meta.description,
          account: channel.id,
        });
        return { status: 200, body: resourceOf(video.id, parts), lost: lose };
      },
    },
    {
      method: 'DELETE',
      path: '/youtube/v3/videos',
      handler: (ctx) => {
        requireScope(ctx, 'videos.delete');
        const channel = channelOf(ctx);
        const video = ownVideo(ctx, ctx.query.get('id'), channel.id);
        videos.delete(video.id);
        ctx.record({
          kind: 'delete',
          id: video.id,
          parentId: null,
          rootId: null,
          text: null,
          account: channel.id,
        });
        return { status: 204 };
      },
    },
  ];
};
