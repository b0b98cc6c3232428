import { createHash } from 'node:crypto';
import { objectOf, type SimContext, SimHttpError, type SimResponse } from '../framework/framework.ts';
import { vimeoErrors } from './errors.ts';
import type { SimVimeoTrack } from './records.ts';
import type { VimeoState } from './state.ts';

/** A video's text tracks: add, list, edit. */
export const vimeoTrackRoutes = (s: VimeoState) => {
  const { hosts, tuning, own } = s;

  const trackBody = (track: SimVimeoTrack) => ({
    uri: track.uri,
    active: track.active,
    type: track.type,
    language: track.language,
    name: track.name,
    link: track.size === null ? null : `https://captions.cloud.vimeo.com/captions/${track.id}.vtt`,
    link_expires_time: null,
    hls_link: null,
  });

  const addTrack = (ctx: SimContext): SimResponse => {
    const video = own(ctx);
    const body = objectOf(ctx.body) ?? Object.fromEntries(ctx.query);
    const type = body.type;
    const language = body.language;
    if (!['captions', 'subtitles', 'chapters', 'descriptions', 'metadata'].includes(type as string)) {
      return vimeoErrors.badRequest('type must be captions, subtitles, chapters, descriptions or metadata.');
    }
    if (typeof language !== 'string' || !/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/.test(language)) {
      return vimeoErrors.badRequest('language must be a language code (en, fr-CA, ...).');
    }
    const id = String(tuning.nextId++);
    const track: SimVimeoTrack = {
      id,
      uri: `${video.uri}/texttracks/${id}`,
      type: type as SimVimeoTrack['type'],
      language,
      name: typeof body.name === 'string' ? body.name : '',
      active: false,
      size: null,
      sha256: null,
      text: null,
    };
    video.tracks.push(track);
    const link = hosts.openTrack(
      (bytes) => {
        track.size = bytes.length;
        track.sha256 = createHash('sha256').update(bytes).digest('hex');
        track.text = bytes.toString('utf8');
      },
      () => !video.deleted && video.tracks.includes(track),
    );
    return { status: 201, body: { ...trackBody(track), link } };
  };

  const trackOf = (ctx: SimContext) => {
    const video = own(ctx);
    const track = video.tracks.find((t) => t.id === ctx.params.track);
    if (!track) throw new SimHttpError(vimeoErrors.notFound(`No text track ${ctx.params.track}.`));
    return track;
  };

  const editTrack = (ctx: SimContext): SimResponse => {
    const track = trackOf(ctx);
    const body = objectOf(ctx.body) ?? {};
    if (body.active !== undefined) {
      if (typeof body.active !== 'boolean') return vimeoErrors.badRequest('active must be a boolean.');
      if (body.active && track.size === null) {
        return vimeoErrors.badRequest('The text track has no file yet: PUT it to the link first.');
      }
      track.active = body.active;
    }
    if (typeof body.name === 'string') track.name = body.name;
    return { status: 200, body: trackBody(track) };
  };

  return { trackBody, addTrack, editTrack };
};
