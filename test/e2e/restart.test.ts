import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestRuntime } from '../support/runtime.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'herald-restart-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('local runtime restart', () => {
  it('keeps the seeded account and what was created, and does not seed twice', async () => {
    const tableName = `herald-restart-${process.pid}`;
    const first = await startTestRuntime({ dataDir, tableName });
    expect(first.seededNow).toBe(true);
    const tag = await first.api('/tags', { method: 'POST', body: { name: 'Survives restarts' } });
    expect(tag.status).toBe(201);
    await first.stop();

    const second = await startTestRuntime({ dataDir, tableName });
    try {
      expect(second.seededNow).toBe(false);
      expect(second.seed.keys).toEqual(first.seed.keys);
      const tags = await second.api('/tags');
      expect(tags.status).toBe(200);
      expect(tags.body.data.map((t: { name: string }) => t.name)).toContain('Survives restarts');
    } finally {
      await second.stop();
    }
  });
});
