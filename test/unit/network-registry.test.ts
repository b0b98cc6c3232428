/**
 * The network clients load on first use (functions/platforms/registry.ts): the stand-in a function
 * gets at once must say what the real client says (its platform, its consistency window, its
 * methods) and hand every call to the real client once loaded.
 */
import { describe, expect, it } from 'vitest';
import { getPlatform } from '../../functions/domain/platforms/catalog.ts';
import { PLATFORM_IDS } from '../../functions/domain/platforms/types.ts';
import {
  COMMENT_METHODS,
  CONSISTENCY_WINDOW_SECONDS,
  loadLiveClient,
  networkClients,
} from '../../functions/platforms/registry.ts';
import { NetworkError } from '../../functions/ports/network-client.ts';

const config = { baseUrls: {}, timeoutMs: 1000 };

describe('lazily loaded network clients', () => {
  it.each(PLATFORM_IDS)('%s: the stand-in matches the real client', async (platform) => {
    const real = await loadLiveClient(platform, config);
    const lazy = networkClients(config)(platform, 'live');
    expect(lazy.platform).toBe(real.platform);
    expect(lazy.consistencyWindowSeconds).toBe(real.consistencyWindowSeconds);
    expect(CONSISTENCY_WINDOW_SECONDS[platform]).toBe(real.consistencyWindowSeconds);
    for (const method of ['publish', 'edit', 'delete', 'lookup', 'metrics'] as const) {
      expect({ platform, method, real: typeof real[method] }).toEqual({ platform, method, real: 'function' });
      expect(typeof lazy[method]).toBe('function');
    }
  });

  it.each(PLATFORM_IDS)(
    '%s: reads and answers comments exactly where GET /v1/platforms says it can',
    async (platform) => {
      const readable = getPlatform(platform)?.limits.commentsReadable;
      expect(Boolean(getPlatform(platform)?.limits.commentReplies)).toBe(readable);
      const real = await loadLiveClient(platform, config);
      const lazy = networkClients(config)(platform, 'live');
      for (const method of COMMENT_METHODS) {
        const expected = readable ? 'function' : 'undefined';
        expect({ platform, method, real: typeof real[method] }).toEqual({ platform, method, real: expected });
        expect({ platform, method, lazy: typeof lazy[method] }).toEqual({ platform, method, lazy: expected });
      }
    },
  );

  it('follows the configured consistency windows of X and Reddit, as their clients do', async () => {
    const custom = { ...config, xConsistencyWindowSeconds: 2, redditConsistencyWindowSeconds: 3 };
    for (const platform of ['x', 'reddit'] as const) {
      const lazy = networkClients(custom)(platform, 'live');
      expect(lazy.consistencyWindowSeconds).toBe(
        (await loadLiveClient(platform, custom)).consistencyWindowSeconds,
      );
      expect(lazy.consistencyWindowSeconds).toBe(platform === 'x' ? 2 : 3);
    }
  });

  it('hands a call to the real client and returns its answer or its error', async () => {
    // Nothing listens on this port: the real client's own network error comes back through the stand-in.
    const offline = { baseUrls: { bluesky: 'http://127.0.0.1:9' }, timeoutMs: 1000 };
    const clients = networkClients(offline);
    const lazy = clients('bluesky', 'live');
    expect(clients('bluesky', 'live')).toBe(lazy);
    const input = {
      credentials: { accessToken: 'token', remoteAccountId: 'did:plc:abc' },
      block: { remoteId: 'at://did:plc:abc/app.bsky.feed.post/1', remoteUrl: 'https://bsky.app', meta: {} },
    };
    const viaLazy = await lazy.metrics?.(input).catch((error: unknown) => error);
    const viaReal = await (await loadLiveClient('bluesky', offline))
      .metrics?.(input)
      .catch((error: unknown) => error);
    expect(viaLazy).toBeInstanceOf(NetworkError);
    expect((viaLazy as NetworkError).message).toBe((viaReal as NetworkError).message);
  });

  it('gives test keys the sandbox, which calls no network', async () => {
    const sandbox = networkClients(config)('x', 'test');
    expect(sandbox.constructor.name).toBe('SandboxNetworkClient');
  });
});
