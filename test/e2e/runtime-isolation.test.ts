/**
 * Two local runtimes in one process share every handler module, yet each invocation reads only
 * its own runtime's container: its table, queues, clock and overrides (functions/runtime/compose.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveOnNetwork } from '../support/interleave.ts';
import { publishNow } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let a: TestRuntime;
let b: TestRuntime;
beforeAll(async () => {
  a = await startTestRuntime();
  b = await startTestRuntime();
}, 120_000);
afterAll(async () => {
  await a?.destroy();
  await b?.destroy();
});

const blueskyOf = (rt: TestRuntime) => rt.seed.channels.find((c) => c.platform === 'bluesky')?.id as string;
const marker = `isolation ${Date.now()}`;

describe('two runtimes in one process', () => {
  it('each answers from its own table: a key of one is unknown to the other', async () => {
    expect(a.container.deps.table.tableName).not.toBe(b.container.deps.table.tableName);
    expect((await a.api('/tags', { key: a.seed.keys.live })).status).toBe(200);
    expect((await b.api('/tags', { key: b.seed.keys.live })).status).toBe(200);
    expect((await b.api('/tags', { key: a.seed.keys.live })).status).toBe(401);
    expect((await a.api('/tags', { key: b.seed.keys.live })).status).toBe(401);
  });

  it('each publishes through its own queue and workers to its own simulators, at once', async () => {
    const [onA, onB] = await Promise.all([
      publishNow(a, a.seed.keys.live, blueskyOf(a), `${marker} a`),
      publishNow(b, b.seed.keys.live, blueskyOf(b), `${marker} b`),
    ]);
    expect(onA.status).toBe('published');
    expect(onB.status).toBe('published');
    expect(liveOnNetwork(a, 'bluesky', `${marker} a`)).toHaveLength(1);
    expect(liveOnNetwork(a, 'bluesky', `${marker} b`)).toHaveLength(0);
    expect(liveOnNetwork(b, 'bluesky', `${marker} b`)).toHaveLength(1);
    expect(liveOnNetwork(b, 'bluesky', `${marker} a`)).toHaveLength(0);
  });

  it("an override of one runtime's clock reaches its handlers only", async () => {
    const ahead = new Date(Date.now() + 400 * 24 * 3600_000);
    const restore = a.container.override({ clock: { now: () => new Date(ahead) } });
    try {
      const draft = (rt: TestRuntime) =>
        rt.api('/posts', {
          method: 'POST',
          body: { intent: 'draft', channels: [{ channelId: blueskyOf(rt), blocks: [{ content: marker }] }] },
        });
      const [fromA, fromB] = await Promise.all([draft(a), draft(b)]);
      expect(fromA.status, fromA.text).toBe(201);
      expect(fromB.status, fromB.text).toBe(201);
      expect(fromA.body.createdAt).toBe(ahead.toISOString());
      expect(Math.abs(Date.parse(fromB.body.createdAt) - Date.now())).toBeLessThan(60_000);
    } finally {
      restore();
    }
    expect(a.container.deps.clock).toBe(b.container.deps.clock);
  });
});
