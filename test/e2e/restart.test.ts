import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mutatePost, startRound } from '../../functions/core/publishing/engine.ts';
import { schedulesOf } from '../support/interleave.ts';
import { waitForPost } from '../support/publishing.ts';
import { waitForQueuesIdle } from '../support/quiet.ts';
import { startTestRuntime } from '../support/runtime.ts';
import { waitFor } from '../support/wait.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'herald-restart-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('local runtime restart', () => {
  it('keeps the seeded account and what was created, does not seed twice, and resumes lost publish jobs', async () => {
    const tableName = `herald-restart-${process.pid}`;
    const first = await startTestRuntime({ dataDir, tableName });
    expect(first.seededNow).toBe(true);
    const tag = await first.api('/tags', { method: 'POST', body: { name: 'Survives restarts' } });
    expect(tag.status).toBe(201);
    // A post whose publish job was still in the in-memory queue when the runtime stopped.
    const bluesky = first.seed.channels.find((c) => c.platform === 'bluesky')?.id;
    const draft = await first.api('/posts', {
      method: 'POST',
      body: {
        intent: 'draft',
        channels: [{ channelId: bluesky, blocks: [{ content: 'in flight at stop' }] }],
      },
    });
    await mutatePost(first.container.deps, draft.body.id, (post) => ({ next: startRound(post, new Date()) }));
    await first.stop();

    const second = await startTestRuntime({ dataDir, tableName });
    try {
      expect(second.seededNow).toBe(false);
      expect(second.seed.keys).toEqual(first.seed.keys);
      const tags = await second.api('/tags');
      expect(tags.status).toBe(200);
      expect(tags.body.data.map((t: { name: string }) => t.name)).toContain('Survives restarts');
      expect((await waitForPost(second, draft.body.id)).status).toBe('published');
    } finally {
      await second.stop();
    }
  });
});

describe('scheduled posts across a restart', () => {
  it('publishes, exactly once, the posts whose schedules fell due while the runtime was stopped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-restart-due-'));
    const tableName = `herald-restart-due-${process.pid}`;
    // A short lead, so the schedules themselves (not the queue delay) carry the posts across the stop.
    const env = { SCHEDULE_LEAD_SECONDS: '1' };
    const first = await startTestRuntime({ dataDir: dir, tableName, env });
    let second: Awaited<ReturnType<typeof startTestRuntime>> | undefined;
    try {
      const channel = (platform: string) => first.seed.channels.find((c) => c.platform === platform)?.id;
      const scheduledAt = new Date(Date.now() + 5000).toISOString();
      const posts: { id: string; platform: string; text: string }[] = [];
      for (const platform of ['bluesky', 'x']) {
        const text = `due while stopped on ${platform} ${Date.now()}`;
        const created = await first.api('/posts', {
          method: 'POST',
          body: {
            intent: 'schedule',
            scheduledAt,
            channels: [{ channelId: channel(platform), blocks: [{ content: text }] }],
          },
        });
        expect(created.status, created.text).toBe(201);
        expect(created.body.status).toBe('scheduled');
        posts.push({ id: created.body.id, platform, text });
      }
      await first.stop();
      // Start again only once the posts' time has passed.
      await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(scheduledAt) - Date.now() + 500)));

      const restarted = await startTestRuntime({ dataDir: dir, tableName, env });
      second = restarted;
      for (const post of posts) {
        expect((await waitForPost(second, post.id)).status).toBe('published');
      }
      // Before counting sends, the work that could send again is done: no schedule of these posts is
      // left to fire, and the publish queue holds no message (a recovered duplicate included).
      await waitFor(
        async () => (await Promise.all(posts.map((p) => schedulesOf(restarted, p.id)))).flat().length === 0,
        { what: "the posts' schedules to be gone" },
      );
      await waitForQueuesIdle(restarted, ['publish']);
      for (const post of posts) {
        const sent = (second.simulators.byPlatform.get(post.platform as never)?.records() ?? []).filter(
          (record) => record.text === post.text,
        );
        expect(sent, post.platform).toHaveLength(1);
        const again = await second.api(`/posts/${post.id}`);
        expect(again.body.status).toBe('published');
      }
    } finally {
      await second?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
