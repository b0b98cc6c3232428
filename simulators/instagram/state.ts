import { type SimContext, SimHttpError } from '../framework/framework.ts';
import { instagramErrors, instagramPermissionError } from './errors.ts';
import { DAY_MS } from './graph-values.ts';
import { instagramOAuthSimulator } from './oauth.ts';
import { DEFAULT_INSTAGRAM_LIST_LAG_MS, type InstagramSimulatorOptions } from './options.ts';
import type { Container, SimComment, SimMedia, StatusCode } from './records.ts';

/** The Instagram simulator's in-memory accounts: containers, media, comments, the publishing cap, and the checks every route shares. */
export const instagramState = (options: InstagramSimulatorOptions) => {
  const oauth = instagramOAuthSimulator(options.oauth);
  /**
   * A token the OAuth half issued must hold every permission the call needs (Graph's code 10
   * otherwise); tokens it did not issue are not checked.
   */
  const requirePermissions = (ctx: SimContext, ...needed: string[]) => {
    const held = ctx.token ? oauth.scopesOf(ctx.token) : null;
    if (held !== null && needed.some((permission) => !held.includes(permission))) {
      throw new SimHttpError(instagramPermissionError());
    }
  };
  const containers = new Map<string, Container>();
  const media = new Map<string, SimMedia>();
  const comments = new Map<string, SimComment>();
  /** Publication times per account, for the rolling 24-hour cap. */
  const published = new Map<string, number[]>();
  const defaults = {
    processingMs: options.processingMs ?? 300,
    publishLimit: options.publishLimit ?? 50,
    containerTtlMs: options.containerTtlMs ?? DAY_MS,
    listLagMs: options.listLagMs ?? DEFAULT_INSTAGRAM_LIST_LAG_MS,
  };
  /** What the switches change: processing time, list lag, and until when every account's cap is spent. */
  const tuning = { processingMs: defaults.processingMs, listLagMs: defaults.listLagMs, capFullUntil: 0 };
  /** Whether a list read now shows what was made at `createdAt` (the lists lag behind). */
  const listed = (createdAt: number) => Date.now() - createdAt >= tuning.listLagMs;

  const checkVersion = (ctx: SimContext) => {
    if (!/^v\d+\.\d+$/.test(ctx.params.version ?? '')) {
      throw new SimHttpError(instagramErrors.notFound(ctx.path));
    }
  };

  const statusOf = (container: Container, now = Date.now()): StatusCode => {
    if (container.publishedAs) return 'PUBLISHED';
    if (container.expired || now - container.createdAt >= defaults.containerTtlMs) return 'EXPIRED';
    if (container.error) return 'ERROR';
    if (container.kind === 'CAROUSEL') {
      const children = container.children.map((id) => containers.get(id) as Container);
      const states = children.map((child) => statusOf(child, now));
      if (states.includes('ERROR')) return 'ERROR';
      if (states.includes('EXPIRED')) return 'EXPIRED';
      if (states.some((s) => s === 'IN_PROGRESS') || now < container.readyAt) return 'IN_PROGRESS';
      return 'FINISHED';
    }
    if (container.fetching || now < container.readyAt) return 'IN_PROGRESS';
    return 'FINISHED';
  };

  const errorOf = (container: Container): { message: string; subcode: number } | null => {
    if (container.error) return container.error;
    for (const id of container.children) {
      const child = containers.get(id);
      if (child?.error) return child.error;
    }
    return null;
  };

  const statusText = (container: Container, code: StatusCode) => {
    if (code === 'ERROR') {
      const error = errorOf(container);
      return `Error: ${error?.message ?? 'Unknown error'} (error code ${error?.subcode ?? 2207001})`;
    }
    if (code === 'EXPIRED') return 'Expired: the container was not published within 24 hours.';
    return code === 'IN_PROGRESS' ? 'In Progress' : code === 'PUBLISHED' ? 'Published' : 'Finished';
  };

  const windowOf = (account: string, now = Date.now()) => {
    const kept = (published.get(account) ?? []).filter((at) => now - at < DAY_MS);
    published.set(account, kept);
    return kept;
  };
  const capSpent = (account: string, now = Date.now()) =>
    now < tuning.capFullUntil || windowOf(account, now).length >= defaults.publishLimit;
  const quotaUsage = (account: string) =>
    Date.now() < tuning.capFullUntil ? defaults.publishLimit : windowOf(account).length;

  const liveComment = (id: string) => {
    const comment = comments.get(id);
    return comment && !comment.deleted && media.has(comment.mediaId) ? comment : null;
  };

  const fieldsOf = (ctx: SimContext, fallback: string[]) => {
    const raw = ctx.query.get('fields');
    return raw ? raw.split(',').map((f) => f.trim()) : fallback;
  };

  return {
    options,
    fieldsOf,
    oauth,
    requirePermissions,
    containers,
    media,
    comments,
    published,
    defaults,
    tuning,
    listed,
    checkVersion,
    statusOf,
    errorOf,
    statusText,
    windowOf,
    capSpent,
    quotaUsage,
    liveComment,
  };
};

export type InstagramState = ReturnType<typeof instagramState>;
