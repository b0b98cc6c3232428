import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlueskyClient } from '../../functions/platforms/bluesky/client.ts';
import { createLinkedInClient } from '../../functions/platforms/linkedin/client.ts';
import { SandboxNetworkClient } from '../../functions/platforms/sandbox/client.ts';
import { SIMULATED_METRICS, simulatedMetrics } from '../../functions/platforms/sandbox/metrics.ts';
import { XClient } from '../../functions/platforms/x/client.ts';
import type {
  MetricsReading,
  NetworkClient,
  NetworkCredentials,
  RemoteBlock,
} from '../../functions/ports/network-client.ts';
import { startBlueskySimulator } from '../../simulators/bluesky/simulator.ts';
import type { Simulator } from '../../simulators/framework/framework.ts';
import { startLinkedInSimulator } from '../../simulators/linkedin/simulator.ts';
import { startXSimulator } from '../../simulators/x/simulator.ts';
import { blockInput, failureOf } from '../support/network.ts';

const sims: Simulator[] = [];
afterAll(async () => {
  await Promise.all(sims.map((sim) => sim.stop()));
});

/** Every value is a whole number >= 0 and every name one of `names`. */
const expectShape = (reading: MetricsReading, names: readonly string[]) => {
  expect(Object.keys(reading).sort()).toEqual([...names].sort());
  for (const value of Object.values(reading))
    expect(Number.isInteger(value) && (value as number) >= 0).toBe(true);
};

/** Two reads a moment apart: the counts are running totals, never going down. */
const readTwice = async (client: NetworkClient, credentials: NetworkCredentials, block: RemoteBlock) => {
  const first = await client.metrics?.({ credentials, block });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const second = await client.metrics?.({ credentials, block });
  for (const [name, value] of Object.entries(first ?? {})) {
    expect(second?.[name as keyof MetricsReading]).toBeGreaterThanOrEqual(value as number);
  }
  return second as MetricsReading;
};

describe('metrics from each network client against its simulator', () => {
  let x: { sim: Simulator; client: XClient };
  beforeAll(async () => {
    const sim = await startXSimulator({ timelineLagMs: 0 });
    sims.push(sim);
    x = { sim, client: new XClient({ baseUrl: sim.url, timeoutMs: 2_000 }) };
  });

  it('X: public_metrics of a tweet under the stable names; a deleted tweet is a permanent error', async () => {
    const credentials = { accessToken: 'x-token-alice', remoteAccountId: 'alice' };
    const block = await x.client.publish(blockInput(credentials)('Counting'));
    const reading = await readTwice(x.client, credentials, block);
    expectShape(reading, ['likes', 'comments', 'reposts', 'quotes', 'bookmarks', 'views']);
    await x.client.delete({ credentials, block });
    const error = await failureOf(x.client.metrics({ credentials, block }));
    expect(error.kind).toBe('permanent');
  });

  it('Bluesky: getPosts counts (no views: absent, not zero)', async () => {
    const sim = await startBlueskySimulator();
    sims.push(sim);
    const client = new BlueskyClient({ baseUrl: sim.url, timeoutMs: 2_000 });
    const credentials = {
      accessToken: 'bsky-access-jwt-alice',
      remoteAccountId: 'did:plc:alice2345abcdefghijklmno',
    };
    const block = await client.publish(blockInput(credentials)('Counting on Bluesky'));
    const reading = await readTwice(client, credentials, block);
    expectShape(reading, ['likes', 'comments', 'reposts', 'quotes']);
    expect('views' in reading).toBe(false);
    await client.delete({ credentials, block });
    expect((await failureOf(client.metrics({ credentials, block }))).kind).toBe('permanent');
  });

  it('LinkedIn: socialActions for a profile post and its comment; share statistics for a page post', async () => {
    const sim = await startLinkedInSimulator();
    sims.push(sim);
    const credentials = { accessToken: 'li-token-alice', remoteAccountId: 'AbC123xyz' };
    const profile = createLinkedInClient('linkedin', { baseUrl: sim.url, timeoutMs: 2_000 });
    const post = await profile.publish(blockInput(credentials)('Counting on LinkedIn'));
    expectShape(await readTwice(profile, credentials, post), ['likes', 'comments']);
    const comment = await profile.publish(
      blockInput(credentials)('A comment', { parent: { block: post, root: post } }),
    );
    expectShape(await readTwice(profile, credentials, comment), ['likes', 'comments']);

    const page = createLinkedInClient('linkedin_page', { baseUrl: sim.url, timeoutMs: 2_000 });
    const org = { accessToken: 'li-token-org', remoteAccountId: '12345' };
    const pagePost = await page.publish(blockInput(org)('Counting on a page'));
    expectShape(await readTwice(page, org, pagePost), [
      'likes',
      'comments',
      'shares',
      'impressions',
      'reach',
      'clicks',
    ]);
    // Another organization's post has no statistics for this one.
    const other = { accessToken: 'li-token-org', remoteAccountId: '999' };
    expect((await failureOf(page.metrics({ credentials: other, block: pagePost }))).kind).toBe('permanent');
  });
});

describe('sandbox metrics', () => {
  it('grow with the post’s age along the cadence, the same in every process, without a network', async () => {
    const sandbox = new SandboxNetworkClient('x');
    const credentials = { accessToken: 'sandbox', remoteAccountId: 'me' };
    const block = await sandbox.publish(blockInput(credentials)('Hello sandbox'));
    const ages = [3600, 7200, 86_400, 7 * 86_400, 28 * 86_400];
    const readings = await Promise.all(
      ages.map((ageSeconds) => sandbox.metrics({ credentials, block, ageSeconds })),
    );
    for (let i = 1; i < readings.length; i++) {
      for (const name of SIMULATED_METRICS.x) {
        expect(readings[i]?.[name]).toBeGreaterThanOrEqual(readings[i - 1]?.[name] as number);
      }
    }
    expect((readings.at(-1)?.likes ?? 0) > (readings[0]?.likes ?? 0)).toBe(true);
    expect(readings.at(-1)).toEqual(simulatedMetrics('x', block.remoteId, 28 * 86_400));
    expect(
      (await failureOf(sandbox.metrics({ credentials, block: { ...block, remoteId: 'real-id' } }))).kind,
    ).toBe('permanent');
  });
});
