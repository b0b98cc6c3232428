import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mutatePost, startRound } from '../../functions/core/publishing/engine.ts';
import { getDeps } from '../../functions/runtime/container.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime } from '../support/runtime.ts';

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
    await mutatePost(getDeps(), draft.body.id, (post) => ({ next: startRound(post, new Date()) }));
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
