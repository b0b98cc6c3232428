import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach } from 'vitest';
import { PublishingEngine } from '../../functions/core/publishing/engine.ts';
import type { PostRecord } from '../../functions/domain/post.ts';
import type { NetworkClient } from '../../functions/ports/network-client.ts';
import type { PostStore } from '../../functions/ports/posts.ts';
import type { Deps } from '../../functions/runtime/container.ts';
import type { TestRuntime } from './runtime.ts';

/** A point where a request is held: `reached` settles when one gets there, `release()` lets it go on. */
export interface Gate {
  reached: Promise<void>;
  release(): void;
  /** Called by the held request. */
  hold(): Promise<void>;
}

/**
 * Holds whoever calls `wait` until `count` of them wait (`there` then settles) and `open()` lets
 * them all go on at once.
 */
export const barrier = (count: number) => {
  let waiting = 0;
  let open = () => {};
  let allThere = () => {};
  const opened = new Promise<void>((r) => {
    open = r;
  });
  const there = new Promise<void>((r) => {
    allThere = r;
  });
  return {
    there,
    open,
    wait: async () => {
      waiting++;
      if (waiting === count) allThere();
      await opened;
    },
  };
};

/** A barrier for one request. */
export const gate = (): Gate => {
  const one = barrier(1);
  return { reached: one.there, release: one.open, hold: one.wait };
};

/**
 * Replaces dependencies of `rt`'s handlers (which read its container per request), so a test forces
 * an interleaving or a failure on a request's path. The publishing engine is built first, with
 * the real ones: it keeps the deps it was built with. Returns the restore.
 */
export const wrapDeps = (rt: TestRuntime, partial: Partial<Deps>): (() => void) => {
  rt.container.deps.publishing();
  return rt.container.override(partial);
};

/** The post store wrapped (see `wrapDeps`). */
export const wrapPosts = (rt: TestRuntime, wrap: (real: PostStore) => Partial<PostStore>): (() => void) => {
  const real = rt.container.deps.posts;
  const base: PostStore = {
    create: (post, quota) => real.create(post, quota),
    get: (postId) => real.get(postId),
    getWithActivity: (postId) => real.getWithActivity(postId),
    getForJob: (postId, reads) => real.getForJob(postId, reads),
    replace: (previous, next, extras) => real.replace(previous, next, extras),
    delete: (post) => real.delete(post),
    list: (query) => real.list(query),
  };
  return wrapDeps(rt, { posts: { ...base, ...wrap(real) } });
};

/** The same for network clients: `wrap` may replace methods of the client of any platform and mode. */
export const wrapNetworks = (
  rt: TestRuntime,
  wrap: (client: NetworkClient) => Partial<Pick<NetworkClient, 'publish' | 'edit' | 'delete'>>,
): (() => void) => {
  const real: Deps['networks'] = rt.container.deps.networks;
  return wrapDeps(rt, {
    networks: (platform, mode) => {
      const client = real(platform, mode);
      const overrides = wrap(client);
      return new Proxy(client, {
        get(target, prop, receiver) {
          if (prop in overrides) return overrides[prop as keyof typeof overrides];
          const value = Reflect.get(target, prop, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    },
  });
};

/**
 * Every function of `rt`, the publishing engine (the runtime's worker) included, gets
 * `networks`: a new engine is built with it, as a worker's cold start would. Returns the restore.
 */
export const useNetworks = (rt: TestRuntime, networks: Deps['networks']): (() => void) => {
  const engine = new PublishingEngine({ ...rt.container.deps, networks });
  return rt.container.override({ networks, publishing: () => engine });
};

/**
 * For a file whose tests each script X: returns `useClient`, which gives every engine of the
 * runtime (its worker included) `client` for live X posts, through `useNetworks`; the
 * real networks come back after each test.
 */
export const liveXClientPerTest = (runtime: () => TestRuntime): ((client: NetworkClient) => void) => {
  let restore: (() => void) | null = null;
  afterEach(() => {
    restore?.();
    restore = null;
  });
  return (client) => {
    restore?.();
    const rt = runtime();
    const real = rt.container.deps.networks;
    restore = useNetworks(rt, (platform, mode) =>
      platform === 'x' && mode === 'live' ? client : real(platform, mode),
    );
  };
};

/** Every schedule (local scheduler items) whose firing names the post. */
export const schedulesOf = async (rt: TestRuntime, postId: string) => {
  const { table } = rt.container.deps;
  const found: { name: string; fireAt: string; payload: Record<string, unknown> }[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.doc.send(
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: '#type = :schedule',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':schedule': 'Schedule' },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const payload = JSON.parse(item.input as string) as Record<string, unknown>;
      if (payload.postId === postId)
        found.push({ name: item.name as string, fireAt: item.fireAt as string, payload });
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
};

/** The stored post, as the store holds it (fields the API does not show included). */
export const storedPost = async (rt: TestRuntime, postId: string): Promise<PostRecord | null> =>
  rt.container.deps.posts.get(postId);

/**
 * Blocks of posts whose text carries `marker` that are live on a network right now (created and
 * not deleted since), as the simulator's inspection log tells.
 */
export const liveOnNetwork = (rt: TestRuntime, platform: string, marker: string): string[] => {
  const records = rt.simulators.byPlatform.get(platform as never)?.records() ?? [];
  const deleted = new Set(records.filter((r) => r.kind === 'delete').map((r) => r.id));
  return records
    .filter((r) => r.kind !== 'delete' && r.kind !== 'edit' && r.text?.includes(marker))
    .map((r) => r.id)
    .filter((id) => !deleted.has(id));
};

/** The text a network shows for a post now: its last edit, else what was first published. */
export const textOnNetwork = (rt: TestRuntime, platform: string, remoteId: string): string | null => {
  const records = (rt.simulators.byPlatform.get(platform as never)?.records() ?? []).filter(
    (r) => r.id === remoteId && r.kind !== 'delete',
  );
  return records.at(-1)?.text ?? null;
};
