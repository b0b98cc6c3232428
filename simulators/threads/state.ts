import { type SimContext, SimHttpError } from '../framework/framework.ts';
import { missingPermission, unsupported } from './errors.ts';
import { type ContainerStatus, WINDOW_MS } from './limits.ts';
import { threadsOAuthSimulator } from './oauth.ts';
import type { Container, SimThreadsPost } from './records.ts';
import {
  DEFAULT_SWITCHES,
  type ThreadsSimulator,
  type ThreadsSimulatorOptions,
  type ThreadsSwitches,
} from './switches.ts';

/** The Threads simulator's in-memory users: containers, posts, deletes, switches, and the checks every route shares. */
export const threadsState = (options: ThreadsSimulatorOptions) => {
  const oauth = threadsOAuthSimulator(options.oauth);
  /**
   * A token the simulator issued acts for its own user only, as on Threads: another user's id in
   * the path is an object it cannot see. Tokens it did not issue act for the user in the path.
   */
  const checkUser = (ctx: SimContext, method: string): string => {
    const userId = ctx.params.userId as string;
    const owner = ctx.token ? oauth.userOf(ctx.token) : null;
    if (owner !== null && owner !== userId && userId !== 'me') {
      throw new SimHttpError(unsupported(method, userId));
    }
    return userId === 'me' && owner !== null ? owner : userId;
  };
  /**
   * A token the simulator issued must hold every permission the call needs (see `TH_BASIC`…):
   * Graph's code 10 otherwise. Tokens it did not issue are not checked.
   */
  const requirePermissions = (ctx: SimContext, ...needed: string[]) => {
    const held = ctx.token ? oauth.scopesOf(ctx.token) : null;
    if (held !== null && needed.some((permission) => !held.includes(permission)))
      throw new SimHttpError(missingPermission());
  };
  const containers = new Map<string, Container>();
  const posts = new Map<string, SimThreadsPost>();
  const deletes: { userId: string; at: number }[] = [];
  const switches: ThreadsSwitches = { ...DEFAULT_SWITCHES, ...(options.switches ?? {}) };

  const setSwitches: ThreadsSimulator['setSwitches'] = ({ expireContainers, ...rest }) => {
    for (const [key, value] of Object.entries(rest)) {
      if (value !== undefined) (switches as unknown as Record<string, unknown>)[key] = value;
    }
    if (expireContainers) {
      for (const container of containers.values()) {
        if (container.status !== 'PUBLISHED') container.expiresAt = Date.now() - 1;
      }
    }
  };

  /** The container's status now: processing ends at `readyAt`, an unpublished one expires. */
  const statusOf = (container: Container): ContainerStatus => {
    if (container.status === 'PUBLISHED' || container.status === 'ERROR') return container.status;
    if (Date.now() >= container.expiresAt) container.status = 'EXPIRED';
    else if (container.status === 'IN_PROGRESS' && Date.now() >= container.readyAt && container.fetched) {
      container.status = 'FINISHED';
    }
    return container.status;
  };

  const inWindow = (userId: string, replies: boolean) => {
    const since = Date.now() - WINDOW_MS;
    return [...posts.values()].filter(
      (post) =>
        post.userId === userId && (post.replyToId !== null) === replies && Date.parse(post.timestamp) > since,
    );
  };

  return {
    oauth,
    checkUser,
    requirePermissions,
    containers,
    posts,
    deletes,
    switches,
    setSwitches,
    statusOf,
    inWindow,
  };
};

export type ThreadsState = ReturnType<typeof threadsState>;
