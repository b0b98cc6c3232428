import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simFacebookAssets } from '../../simulators/facebook/oauth.ts';
import { numericIdFor } from '../../simulators/framework/oauth.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * Connecting Facebook pages over Herald's HTTP API, as a client's app does (connect, consent at the
 * simulator's Facebook Login, callback, complete, choose targets), for a person whose pages come
 * partly from `/me/accounts` (more than one page of results) and partly only through Business
 * Portfolios (owned and client pages): every page is offered and connects, and publishes.
 */

let rt: TestRuntime;
let ws: Awaited<ReturnType<typeof freshWorkspace>>;
const REDIRECT = 'https://client.example/after-connect';

beforeAll(async () => {
  rt = await startTestRuntime({ env: { NETWORK_TIMEOUT_MS: '3000', PUBLISH_RETRY_BASE_SECONDS: '0.5' } });
  ws = await freshWorkspace(rt, []);
});
afterAll(async () => {
  await rt?.destroy();
});

const api: TestRuntime['api'] = (path, call = {}) => rt.api(path, { ...call, key: ws.key });

describe('Facebook: connecting the pages of a Business Portfolio user over HTTP', {
  timeout: 120_000,
}, () => {
  it('offers and connects every page: both pages of /me/accounts results and the portfolios’ owned and client pages, once each', async () => {
    const user = `portfolio-${Date.now()}`;
    const started = await api('/channels/connect', {
      method: 'POST',
      body: { platform: 'facebook', redirectUrl: REDIRECT },
    });
    expect(started.status, started.text).toBe(201);
    const authorize = new URL(started.body.authorizeUrl);
    expect(authorize.searchParams.get('scope')?.split(',')).toContain('business_management');
    authorize.searchParams.set('sim_user', user);
    const atNetwork = await fetch(authorize, { redirect: 'manual' });
    expect(atNetwork.status).toBe(302);
    const atHerald = await fetch(atNetwork.headers.get('location') as string, { redirect: 'manual' });
    expect(atHerald.status).toBe(302);
    const landed = new URL(atHerald.headers.get('location') as string).searchParams;
    expect(landed.get('error')).toBeNull();
    const done = await api('/channels/connect/complete', {
      method: 'POST',
      body: { connectCode: landed.get('connectCode') },
    });
    expect(done.status, done.text).toBe(200);
    expect(done.body.pending).toBe('targets');

    // The user's account id as the simulator's Facebook Login names it gives the pages to expect.
    const assets = simFacebookAssets(numericIdFor(`fb:${user}`, 16), user);
    const expected = new Map(
      [...assets.accounts, ...assets.businesses.flatMap((b) => [...b.owned, ...b.client])].map((p) => [
        p.id,
        p.name,
      ]),
    );
    expect(expected.size).toBe(9);

    const offered = done.body.data as { id: string; name: string }[];
    expect(offered.map((t) => t.id).sort()).toEqual([...expected.keys()].sort());
    const chosen = await api(`/channels/connect/${done.body.connectionId}/targets`, {
      method: 'POST',
      body: { targetIds: offered.map((t) => t.id) },
    });
    expect(chosen.status, chosen.text).toBe(201);
    const channels = chosen.body.data as { id: string; name: string }[];
    expect(channels).toHaveLength(9);
    expect(channels.map((c) => c.name).sort()).toEqual([...expected.values()].sort());

    // A page only a portfolio reaches, and a client page, publish through their own page tokens.
    const businessOnly = [
      ...(assets.businesses[0]?.owned.slice(1, 2) ?? []),
      ...(assets.businesses[0]?.client ?? []),
    ];
    expect(businessOnly).toHaveLength(2);
    for (const page of businessOnly) {
      const channel = channels.find((c) => c.name === page.name) as { id: string };
      const created = await api('/posts', {
        method: 'POST',
        body: {
          intent: 'now',
          channels: [{ channelId: channel.id, blocks: [{ content: `to ${page.name}` }] }],
        },
      });
      expect(created.status, created.text).toBe(201);
      const post = await waitForPost(rt, created.body.id, ws.key, 60_000);
      expect(post.status).toBe('published');
      expect(post.channels[0].blocks[0].remoteUrl).toContain(`facebook.com/${page.id}_`);
    }
  });
});
