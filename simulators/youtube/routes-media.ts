import { createHash, randomBytes } from 'node:crypto';
import { headerOf, objectOf, type SimRoute } from '../framework/framework.ts';
import { googleError, THUMBNAIL_MAX_BYTES } from './errors.ts';
import { multipartOf } from './multipart.ts';
import type { SimCaption } from './records.ts';
import type { YouTubeState } from './state.ts';

/** A video's thumbnail and captions. */
export const youtubeMediaRoutes = (s: YouTubeState): SimRoute[] => {
  const { requireScope, channelOf, ownVideo } = s;
  return [
    {
      method: 'POST',
      path: '/upload/youtube/v3/thumbnails/set',
      rawBody: true,
      maxBodyBytes: 8 * 1024 * 1024,
      handler: (ctx) => {
        requireScope(ctx, 'thumbnails.set');
        const channel = channelOf(ctx);
        const video = ownVideo(ctx, ctx.query.get('videoId'), channel.id);
        const type = headerOf(ctx.headers, 'content-type') ?? '';
        if (!/^image\/(jpeg|png)$|^application\/octet-stream$/.test(type))
          return googleError(400, 'invalidImage', 'The provided image content is invalid.');
        if (ctx.rawBody.length > THUMBNAIL_MAX_BYTES)
          return googleError(400, 'mediaBodyTooLarge', 'The thumbnail image file is larger than 2 MB.');
        if (ctx.rawBody.length === 0)
          return googleError(400, 'mediaBodyRequired', 'The request does not include the image content.');
        video.thumbnail = {
          size: ctx.rawBody.length,
          sha256: createHash('sha256').update(ctx.rawBody).digest('hex'),
          mimeType: type,
        };
        const url = `https://i.ytimg.com/vi/${video.id}/maxresdefault.jpg`;
        return {
          status: 200,
          body: {
            kind: 'youtube#thumbnailSetResponse',
            items: [{ default: { url, width: 120, height: 90 } }],
          },
        };
      },
    },
    {
      method: 'POST',
      path: '/upload/youtube/v3/captions',
      rawBody: true,
      maxBodyBytes: 100 * 1024 * 1024,
      handler: (ctx) => {
        requireScope(ctx, 'captions.insert');
        const channel = channelOf(ctx);
        if (ctx.query.get('uploadType') !== 'multipart')
          return googleError(400, 'badRequest', 'Send the caption with uploadType=multipart.');
        const parts = multipartOf(ctx.rawBody, headerOf(ctx.headers, 'content-type') ?? '');
        if (parts?.length !== 2 || !parts[0] || !parts[1])
          return googleError(
            400,
            'badRequest',
            'A multipart/related body with metadata and media is required.',
          );
        let resource: unknown;
        try {
          resource = JSON.parse((parts[0] as { body: Buffer }).body.toString('utf8'));
        } catch {
          return googleError(400, 'parseError', 'The caption resource is not valid JSON.');
        }
        const snippet = objectOf(objectOf(resource)?.snippet);
        const video = ownVideo(
          ctx,
          typeof snippet?.videoId === 'string' ? snippet.videoId : null,
          channel.id,
        );
        const language = snippet?.language;
        if (typeof language !== 'string' || !/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/.test(language))
          return googleError(400, 'invalidMetadata', 'The caption track language is missing or invalid.');
        const name = typeof snippet?.name === 'string' ? snippet.name : '';
        if ([...name].length > 150)
          return googleError(400, 'nameTooLong', 'The caption track name is longer than 150 characters.');
        const file = (parts[1] as { body: Buffer }).body;
        if (file.length === 0) return googleError(400, 'contentRequired', 'The caption file is empty.');
        if (video.captions.some((c) => c.language === language && c.name === name))
          return googleError(
            409,
            'captionExists',
            'The video already has a caption track with this language and name.',
          );
        const text = file.toString('utf8');
        const caption: SimCaption = {
          id: `AUieDa${randomBytes(12).toString('base64url')}`,
          language,
          name,
          format: /^\uFEFF?WEBVTT/.test(text)
            ? 'vtt'
            : /^\uFEFF?\d+\r?\n\d\d:\d\d:\d\d,\d{3} --> /.test(text)
              ? 'srt'
              : 'other',
          size: file.length,
          sha256: createHash('sha256').update(file).digest('hex'),
        };
        if (caption.format === 'other')
          return googleError(400, 'invalidCaptionFormat', 'The caption file is in an unsupported format.');
        video.captions.push(caption);
        return {
          status: 200,
          body: {
            kind: 'youtube#caption',
            id: caption.id,
            snippet: {
              videoId: video.id,
              lastUpdated: new Date().toISOString(),
              trackKind: 'standard',
              language,
              name,
              audioTrackType: 'unknown',
              isCC: false,
              isDraft: false,
              status: 'serving',
            },
          },
        };
      },
    },
  ];
};
