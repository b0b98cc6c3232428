/**
 * Publishing benchmark: 1,000 posts × 3 channels (X, Bluesky, LinkedIn) published through the
 * local runtime's queue and workers against the network simulators, beside the simulators' own
 * capacity measured with the same clients; and scheduling precision for 200 posts scheduled a
 * few seconds ahead (publication start − scheduledAt).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalRuntime } from '../functions/adapters/local/runtime.ts';
import {
  connectChannel,
  createAccount,
  createApiKey,
  createWorkspace,
} from '../functions/core/admin/admin.ts';
import { getDeps } from '../functions/runtime/container.ts';
import { machineLine, measure, ms, percentile, ratio, writeSection } from './lib.ts';

const POSTS = Number(process.env.BENCH_PUBLISH_POSTS ?? 1000);
const SCHEDULED = Number(process.env.BENCH_SCHEDULED_POSTS ?? 200);
const PLATFORMS = ['x', 'bluesky', 'linkedin'] as const;

export const runPublishing = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-bench-publish-'));
  const runtime = await startLocalRuntime({ dataDir, port: 0, fresh: true, rateLimitPerMinute: 10_000_000 });
  try {
    const deps = getDeps();
    const account = await createAccount(deps, { name: 'Bench', plan: 'unlimited' });
    const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'bench' });
    const { secret } = await createApiKey(deps, {
      accountId: account.accountId,
      workspaceId: ws.workspaceId,
      mode: 'live',
      permission: 'write',
      name: 'b',
    });
    const channelIds: string[] = [];
    for (const platform of PLATFORMS) {
      channelIds.push(
        (
          await connectChannel(deps, {
            accountId: account.accountId,
            workspaceId: ws.workspaceId,
            platform,
            name: platform,
            remoteAccountId: `bench_${platform}`,
            accessToken: 'bench-token',
          })
        ).channelId,
      );
    }
    const api = async (path: string, body?: unknown) => {
      const res = await fetch(`${runtime.baseUrl}${path}`, {
        method: body ? 'POST' : 'GET',
        headers: { 'x-api-key': secret, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return (await res.json()) as {
        id: string;
        status: string;
        nextCursor?: string | null;
        data?: unknown[];
      };
    };

    // 1. The simulators' own capacity: the same clients, called directly, same concurrency.
    const total = POSTS * PLATFORMS.length;
    const clients = PLATFORMS.map((p) => deps.networks(p, 'live'));
    const capacity = await measure(total, 12, async (i) => {
      const client = clients[i % clients.length];
      await client?.publish({
        credentials: { accessToken: 'bench-token', remoteAccountId: `cap_${PLATFORMS[i % 3]}` },
        content: `capacity ${i}`,
        media: [],
        title: null,
        postType: null,
        options: {},
        parent: null,
        idempotencyKey: `cap.${i}`,
        round: 1,
      });
    });

    // 2. The engine: create every post with intent now, then wait until none is publishing.
    const started = performance.now();
    const ids: string[] = [];
    await measure(POSTS, 8, async (i) => {
      const post = await api('/posts', {
        intent: 'now',
        channels: channelIds.map((channelId, c) => ({
          channelId,
          blocks: [{ content: `bench ${i} on ${PLATFORMS[c]}` }],
        })),
      });
      ids.push(post.id);
    });
    const created = performance.now();
    let remaining = ids.length;
    while (remaining > 0) {
      await new Promise((r) => setTimeout(r, 250));
      let count = 0;
      let cursor: string | null | undefined = null;
      do {
        const page = await api(`/posts?status=publishing&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
        count += page.data?.length ?? 0;
        cursor = page.nextCursor;
      } while (cursor);
      remaining = count;
    }
    const finished = performance.now();
    const failed = (await api('/posts?status=failed&status=partially_published&limit=100')).data?.length ?? 0;
    const seconds = (finished - started) / 1000;
    const engineBlocksPerSecond = total / seconds;

    // 3. Scheduling precision.
    const lead = 8000;
    const at = (i: number) => new Date(Date.now() + lead + (i % 20) * 50).toISOString();
    const scheduledIds: string[] = [];
    await measure(SCHEDULED, 8, async (i) => {
      const post = await api('/posts', {
        intent: 'schedule',
        scheduledAt: at(i),
        channels: [{ channelId: channelIds[1], blocks: [{ content: `scheduled ${i}` }] }],
      });
      scheduledIds.push(post.id);
    });
    const deadline = Date.now() + 60_000;
    const lags: number[] = [];
    for (const id of scheduledIds) {
      for (;;) {
        const post = await deps.posts.get(id);
        if (post?.roundStartedAt && post.scheduledAt) {
          lags.push(Date.parse(post.roundStartedAt) - Date.parse(post.scheduledAt));
          break;
        }
        if (Date.now() > deadline) throw new Error(`post ${id} never started`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    lags.sort((a, b) => a - b);

    const md = `## Publishing engine (issue 4)

Command: \`npm run bench -- publishing\` (${POSTS} posts × ${PLATFORMS.length} channels; ${SCHEDULED} scheduled posts).
${machineLine()}

| what | blocks | wall time | blocks/s |
|---|---|---|---|
| simulators' own capacity (the same clients called directly, 12 in flight) | ${total} | ${(capacity.count / capacity.perSecond).toFixed(1)} s | ${capacity.perSecond.toFixed(0)} |
| Herald: ${POSTS} posts created with intent \`now\` (8 in flight) until none is publishing | ${total} | ${seconds.toFixed(1)} s | ${engineBlocksPerSecond.toFixed(0)} |
| ratio (Herald / simulators) | | | ${ratio(engineBlocksPerSecond, capacity.perSecond)} |

Creating the posts took ${((created - started) / 1000).toFixed(1)} s of that; ${failed} posts did not end published.
Per block the engine claims it (1 conditional write), sends it, settles the claim (1 write),
records it on the post (1 read + 1 transaction) and finishes the channel with its outbox event
(2 reads + 1 transaction), all against DynamoDB Local on the same two cores as the simulators.

Scheduling precision (publication start − scheduledAt, ${lags.length} posts scheduled ~${lead / 1000} s ahead;
the schedule fires 5 s early and the queue delay plus a short sleep close the gap):
p50 **${ms(percentile(lags, 50))}**, p99 **${ms(percentile(lags, 99))}**, max ${ms(lags.at(-1) ?? Number.NaN)}, min ${ms(lags[0] ?? Number.NaN)}.
`;
    writeSection('publishing', md);
    console.log(md);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
