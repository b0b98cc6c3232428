/** Channels in the table (ChannelStore): the plan's channel limit under concurrent connects, and reads by id. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectChannel, createAccount, createWorkspace } from '../../functions/core/admin/admin.ts';
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

describe('channel limit', () => {
  it('lets exactly the plan limit of concurrent connects through', async () => {
    const account = await createAccount(deps, { name: 'Small', plan: 'free' });
    const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'W' });
    const attempts = 20;
    const results = await Promise.allSettled(
      Array.from({ length: attempts }, (_, i) =>
        connectChannel(deps, {
          accountId: account.accountId,
          workspaceId: ws.workspaceId,
          platform: 'x',
          name: `c${i}`,
          accessToken: `t${i}`,
        }),
      ),
    );
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    const refused = results.filter((r) => r.status === 'rejected');
    // Transactions may also be cancelled by a conflicting concurrent transaction; none may overshoot.
    expect(ok).toBeLessThanOrEqual(13);
    for (const r of refused)
      expect(['quota_exceeded', undefined]).toContain((r.reason as { code?: string }).code);
    const channels = await deps.channels.listChannels(ws.workspaceId);
    expect(channels).toHaveLength(ok);
    expect((await deps.accounts.getAccount(account.accountId))?.channelCount).toBe(ok);
    // Filling up one at a time reaches the limit exactly, then refuses.
    for (let i = ok; i < 13; i++) {
      await connectChannel(deps, {
        accountId: account.accountId,
        workspaceId: ws.workspaceId,
        platform: 'bluesky',
        name: `s${i}`,
        remoteAccountId: `did:plc:s${i}`,
        accessToken: 't',
      });
    }
    await expect(
      connectChannel(deps, {
        accountId: account.accountId,
        workspaceId: ws.workspaceId,
        platform: 'bluesky',
        name: 'one too many',
        remoteAccountId: 'did:plc:onetoomany',
        accessToken: 't',
      }),
    ).rejects.toMatchObject({ code: 'quota_exceeded' });
    expect(await deps.channels.listChannels(ws.workspaceId)).toHaveLength(13);
  });
});

describe('connections through the API at the limit', () => {
  const remote = (accountId: string, workspaceId: string, remoteAccountId: string) => ({
    accountId,
    workspaceId,
    platform: 'x' as const,
    name: remoteAccountId,
    remoteAccountId,
    connection: 'connected' as const,
    threadsPermitted: true,
    createdAt: new Date().toISOString(),
  });
  /** Resolves once `count` callers wait on it: each connection has read the guard (none) before any writes. */
  const barrier = (count: number) => {
    let waiting = 0;
    let open: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    return async () => {
      waiting += 1;
      if (waiting === count) open();
      await opened;
    };
  };

  it('connections of one new account that raced at limit - 1 make one channel; the others reconnect it, none is refused', async () => {
    const account = await createAccount(deps, { name: 'Race', plan: 'free' });
    const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'W' });
    for (let i = 0; i < 12; i++) {
      await connectChannel(deps, {
        accountId: account.accountId,
        workspaceId: ws.workspaceId,
        platform: 'x',
        name: `p${i}`,
        accessToken: 't',
      });
    }
    const racers = 5;
    const wait = barrier(racers);
    const results = await Promise.all(
      Array.from({ length: racers }, () =>
        deps.channels.upsertChannel(
          remote(account.accountId, ws.workspaceId, 'raced'),
          async (id) => {
            await wait();
            return `sealed-${id}`;
          },
          13,
        ),
      ),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.channel.channelId)).size).toBe(1);
    expect((await deps.accounts.getAccount(account.accountId))?.channelCount).toBe(13);
  });
});

describe('channels by id', () => {
  it('reads several channels of a workspace at once, only that workspace’s, absent ids left out', async () => {
    const account = await createAccount(deps, { name: 'Many', plan: 'unlimited' });
    const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'W' });
    const other = await createWorkspace(deps, { accountId: account.accountId, name: 'Other' });
    const connect = (workspaceId: string, platform: 'x' | 'bluesky', name: string) =>
      connectChannel(deps, {
        accountId: account.accountId,
        workspaceId,
        platform,
        name,
        // A Bluesky account is its DID.
        ...(platform === 'bluesky' ? { remoteAccountId: `did:plc:${name}` } : {}),
        accessToken: 't',
      });
    const x = await connect(ws.workspaceId, 'x', 'x');
    const bluesky = await connect(ws.workspaceId, 'bluesky', 'b');
    const elsewhere = await connect(other.workspaceId, 'x', 'elsewhere');
    const { channels: found, endpoints } = await deps.channels.getChannelsForJob(ws.workspaceId, [
      x.channelId,
      bluesky.channelId,
      elsewhere.channelId,
      'ch_missing',
      x.channelId,
    ]);
    expect(endpoints).toBe(0);
    expect([...found.keys()].sort()).toEqual([x.channelId, bluesky.channelId].sort());
    expect(found.get(x.channelId)).toEqual(await deps.channels.getChannel(ws.workspaceId, x.channelId));
    expect((await deps.channels.getChannelsForJob(ws.workspaceId, [])).channels.size).toBe(0);
  });
});
