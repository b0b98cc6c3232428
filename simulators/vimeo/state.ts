import { objectOf, type SimContext, SimHttpError, type SimResponse } from '../framework/framework.ts';
import { simulatorMetrics } from '../framework/metrics.ts';
import { numericIdFor } from '../framework/oauth.ts';
import { VIMEO_PRIVACY, vimeoError, vimeoErrors } from './errors.ts';
import { vimeoOAuthSimulator, vimeoScopeRefusal } from './oauth.ts';
import type { SimVimeoVideo, VimeoSimulatorOptions } from './records.ts';
import { vimeoUploadHosts } from './upload.ts';

/** The Vimeo simulator's in-memory videos, its upload hosts, its switches, and the checks and views every route shares. */
export const vimeoState = async (options: VimeoSimulatorOptions) => {
  const videos = new Map<string, SimVimeoVideo>();
  const hosts = vimeoUploadHosts();
  await hosts.start();
  const oauth = vimeoOAuthSimulator(options.oauth);
  /**
   * What the switches change (transcoding time, failing transcodes, free space per account in
   * bytes, null: unlimited) and the next video id.
   */
  const tuning: {
    processingMs: number;
    failTranscode: boolean;
    freeSpaceBytes: number | null;
    nextId: number;
  } = {
    processingMs: options.processingMs ?? 300,
    failTranscode: false,
    freeSpaceBytes: null,
    nextId: 100_000_000 + Math.floor(Math.random() * 800_000_000),
  };

  const accountOf = (ctx: SimContext) =>
    oauth.accountOf(ctx.token ?? '')?.id ?? numericIdFor(`vimeo:${ctx.token ?? ''}`, 9);

  // --- Scopes (Vimeo's OpenAPI reference, https://github.com/vimeo/openapi `api.yaml`): each data
  // route takes the scope its operation's `security` names (`upload` to create a video or add a
  // text track, `edit` to change one, `delete` to delete one); reads take `public`, and a video
  // that is not public (`privacy.view` other than `anybody`) is seen only with `private` as well.
  // A token the OAuth half did not issue (tests' made-up tokens) carries no scope list: allowed.
  const scopesOf = (ctx: SimContext) => oauth.scopesOf(ctx.token ?? '');
  const requireScope = (ctx: SimContext, scope: string) => {
    const scopes = scopesOf(ctx);
    if (scopes && !scopes.includes(scope)) throw new SimHttpError(vimeoScopeRefusal(scope));
  };
  const seesPrivate = (ctx: SimContext) => scopesOf(ctx)?.includes('private') ?? true;
  /** A read of one video: `public`, and `private` too when the video is not public. */
  const readable =
    (handler: (ctx: SimContext) => SimResponse) =>
    (ctx: SimContext): SimResponse => {
      requireScope(ctx, 'public');
      const video = videos.get(ctx.params.id as string);
      if (video && video.privacy !== 'anybody') requireScope(ctx, 'private');
      return handler(ctx);
    };

  const settle = (video: SimVimeoVideo) => {
    if (
      video.transcodeStatus === 'in_progress' &&
      video.transcodedAt !== null &&
      Date.now() >= video.transcodedAt
    ) {
      video.transcodeStatus = video.transcodeFails ? 'error' : 'complete';
    }
    return video;
  };

  const statusOf = (video: SimVimeoVideo) =>
    video.uploadStatus !== 'complete'
      ? 'uploading'
      : video.transcodeStatus === 'in_progress'
        ? 'transcoding'
        : video.transcodeStatus === 'error'
          ? 'transcoding_error'
          : 'available';

  const own = (ctx: SimContext): SimVimeoVideo => {
    const video = videos.get(ctx.params.id as string);
    if (!video || video.deleted) {
      throw new SimHttpError(vimeoErrors.notFound(`No video exists with the id ${ctx.params.id}.`));
    }
    if (video.account !== accountOf(ctx)) {
      throw new SimHttpError(
        vimeoError(
          403,
          3200,
          'You don’t have permission to access this video.',
          'The video belongs to another user.',
        ),
      );
    }
    return settle(video);
  };

  const representation = (video: SimVimeoVideo): Record<string, unknown> => {
    settle(video);
    const metrics = simulatorMetrics('vimeo', video.id, new Date(video.createdTime));
    return {
      uri: video.uri,
      name: video.name,
      description: video.description,
      type: 'video',
      link: video.link,
      player_embed_url: `https://player.vimeo.com/video/${video.id}`,
      duration: 0,
      created_time: video.createdTime,
      modified_time: video.modifiedTime,
      privacy: { view: video.privacy, embed: 'public', download: false, add: true, comments: 'anybody' },
      status: statusOf(video),
      user: { uri: `/users/${video.account}` },
      upload: {
        status: video.uploadStatus,
        approach: 'tus',
        size: video.size,
        upload_link: video.uploadStatus === 'complete' ? null : hostsLink(video),
        form: null,
        complete_uri: null,
        redirect_url: null,
        link: null,
      },
      transcode: { status: video.uploadStatus === 'complete' ? video.transcodeStatus : 'in_progress' },
      stats: { plays: video.privacy === 'nobody' ? null : (metrics.views ?? 0) },
      metadata: {
        connections: {
          comments: { uri: `${video.uri}/comments`, options: ['GET', 'POST'], total: metrics.comments ?? 0 },
          likes: { uri: `${video.uri}/likes`, options: ['GET'], total: metrics.likes ?? 0 },
          texttracks: {
            uri: `${video.uri}/texttracks`,
            options: ['GET', 'POST'],
            total: video.tracks.length,
          },
        },
      },
    };
  };

  const links = new Map<string, string>();
  const hostsLink = (video: SimVimeoVideo) => links.get(video.id) ?? null;

  const privacyOf = (
    body: Record<string, unknown>,
  ): { view: string | undefined; password: string | null } => {
    const privacy = body.privacy;
    if (privacy !== undefined && objectOf(privacy) === null) {
      throw new SimHttpError(vimeoErrors.badRequest('privacy must be an object.'));
    }
    const view = objectOf(privacy)?.view;
    if (view !== undefined && !VIMEO_PRIVACY.includes(view as (typeof VIMEO_PRIVACY)[number])) {
      throw new SimHttpError(
        vimeoErrors.badRequest(`privacy.view must be one of ${VIMEO_PRIVACY.join(', ')}.`),
      );
    }
    const password = body.password;
    if (password !== undefined && (typeof password !== 'string' || password === '')) {
      throw new SimHttpError(vimeoErrors.badRequest('password must be a non-empty string.'));
    }
    return { view: view as string | undefined, password: (password as string | undefined) ?? null };
  };

  const textField = (body: Record<string, unknown>, key: string, max: number | null) => {
    const value = body[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || (max !== null && [...value].length > max)) {
      throw new SimHttpError(
        vimeoErrors.badRequest(
          `${key} must be a string${max === null ? '' : ` of at most ${max} characters`}.`,
        ),
      );
    }
    return value;
  };

  return {
    videos,
    hosts,
    oauth,
    tuning,
    accountOf,
    scopesOf,
    requireScope,
    seesPrivate,
    readable,
    settle,
    statusOf,
    own,
    representation,
    links,
    hostsLink,
    privacyOf,
    textField,
  };
};

export type VimeoState = Awaited<ReturnType<typeof vimeoState>>;
