import { randomBytes } from 'node:crypto';
import { PLATFORM_IDS } from '../../domain/platforms/types.ts';
import {
  type AdminDeps,
  addTag,
  connectChannel,
  createAccount,
  createApiKey,
  createWorkspace,
} from './admin.ts';

/** The demo account written to `<DATA_DIR>/seed.json` on the local runtime's first start. */
export interface SeedResult {
  accountId: string;
  workspaces: { main: string; other: string };
  keys: { live: string; test: string; read: string; otherWorkspace: string };
  channels: { id: string; platform: string; name: string }[];
  otherWorkspaceChannels: { id: string; platform: string; name: string }[];
  tags: { id: string; name: string }[];
}

const demoToken = () => `demo-token-${randomBytes(12).toString('hex')}`;

/** A demo account on a plan with finite limits, two workspaces, a channel per network, two tags. */
export const seedDemoAccount = async (deps: AdminDeps): Promise<SeedResult> => {
  const account = await createAccount(deps, { name: 'Demo Company', plan: 'starter' });
  const main = await createWorkspace(deps, { accountId: account.accountId, name: 'Demo Brand' });
  const other = await createWorkspace(deps, { accountId: account.accountId, name: 'Second Brand' });
  const key = (workspaceId: string, mode: 'live' | 'test', permission: 'read' | 'write', name: string) =>
    createApiKey(deps, { accountId: account.accountId, workspaceId, mode, permission, name });
  const keys = {
    live: (await key(main.workspaceId, 'live', 'write', 'Demo live key')).secret,
    test: (await key(main.workspaceId, 'test', 'write', 'Demo test key')).secret,
    read: (await key(main.workspaceId, 'live', 'read', 'Demo read-only key')).secret,
    otherWorkspace: (await key(other.workspaceId, 'live', 'write', 'Second workspace key')).secret,
  };
  const channels = [];
  for (const platform of PLATFORM_IDS) {
    const channel = await connectChannel(deps, {
      accountId: account.accountId,
      workspaceId: main.workspaceId,
      platform,
      name: `Demo ${platform}`,
      // A Bluesky account is its DID.
      remoteAccountId: platform === 'bluesky' ? 'did:plc:demobluesky' : `demo_${platform}`,
      accessToken: demoToken(),
    });
    channels.push({ id: channel.channelId, platform, name: channel.name });
  }
  const otherChannel = await connectChannel(deps, {
    accountId: account.accountId,
    workspaceId: other.workspaceId,
    platform: 'x',
    name: 'Second brand on X',
    remoteAccountId: 'second_brand',
    accessToken: demoToken(),
  });
  const tags = [];
  for (const name of ['Launch', 'Evergreen']) {
    const tag = await addTag(deps, { accountId: account.accountId, workspaceId: main.workspaceId, name });
    tags.push({ id: tag.tagId, name: tag.name });
  }
  return {
    accountId: account.accountId,
    workspaces: { main: main.workspaceId, other: other.workspaceId },
    keys,
    channels,
    otherWorkspaceChannels: [{ id: otherChannel.channelId, platform: 'x', name: otherChannel.name }],
    tags,
  };
};
