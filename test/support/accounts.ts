import {
  connectChannel,
  createAccount,
  createApiKey,
  createWorkspace,
} from '../../functions/core/admin/admin.ts';
import type { KeyMode } from '../../functions/domain/key-mode.ts';
import type { PlatformId } from '../../functions/domain/platforms/types.ts';
import { keepEvents } from './outbox.ts';
import type { TestRuntime } from './runtime.ts';

/**
 * A fresh account and workspace with a key and one channel per platform asked for (in `rt`'s table). `keepEvents`: the workspace has a webhook endpoint (turned off), so that its
 * events are kept in the outbox for the test to read (a workspace with none keeps no event).
 */
export const freshWorkspace = async (
  rt: TestRuntime,
  platforms: PlatformId[],
  mode: KeyMode = 'live',
  { keepEvents: keep = false }: { keepEvents?: boolean } = {},
) => {
  const deps = rt.container.deps;
  const account = await createAccount(deps, { name: 'Test', plan: 'unlimited' });
  const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'T' });
  if (keep) await keepEvents(rt, account.accountId, ws.workspaceId);
  const { secret } = await createApiKey(deps, {
    accountId: account.accountId,
    workspaceId: ws.workspaceId,
    mode,
    permission: 'write',
    name: 't',
  });
  const channels: Partial<Record<PlatformId, string>> = {};
  for (const platform of platforms) {
    const channel = await connectChannel(deps, {
      accountId: account.accountId,
      workspaceId: ws.workspaceId,
      platform,
      name: `${platform} ${ws.workspaceId}`,
      // A Bluesky account is its DID (the repo every XRPC write names; the PDS simulator checks the
      // lexicon's `at-identifier` format).
      remoteAccountId:
        platform === 'bluesky'
          ? `did:plc:${ws.workspaceId.slice(3, 13).toLowerCase()}`
          : `acct_${ws.workspaceId.slice(3, 13)}_${platform}`,
      accessToken: `token-${ws.workspaceId}`,
    });
    channels[platform] = channel.channelId;
  }
  return {
    accountId: account.accountId,
    workspaceId: ws.workspaceId,
    key: secret,
    channels: channels as Record<PlatformId, string>,
  };
};
