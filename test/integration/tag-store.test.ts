/** Tags in the table (TagStore). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTag } from '../../functions/core/tags/tags.ts';
import { type StoreDeps, tableStores } from '../support/stores.ts';
import { freshTable } from '../support/table.ts';

let table: Awaited<ReturnType<typeof freshTable>>;
let deps: StoreDeps;

beforeAll(async () => {
  table = await freshTable();
  deps = tableStores(table);
});
afterAll(async () => {
  await table?.drop();
});

describe('tags', () => {
  it('keeps names unique under concurrent creates', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        createTag(deps, { workspaceId: 'ws_race', name: i % 2 ? 'Race' : 'race ' }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await deps.tags.listTags('ws_race')).toHaveLength(1);
  });
});
