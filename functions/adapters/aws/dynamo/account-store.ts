import type { AccountStore } from '../../../ports/accounts.ts';
import {
  getAccount,
  getWorkspace,
  listWorkspaces,
  putAccount,
  putWorkspace,
  setAccountPlan,
} from './accounts.ts';
import { putApiKey } from './api-keys.ts';
import {
  channelsDueForRefresh,
  connectChannel,
  disconnectChannel,
  getChannel,
  getChannelsForJob,
  holdRefresh,
  listChannels,
  markNeedsReconnect,
  releaseRefresh,
  replaceTokens,
  upsertChannel,
} from './channels.ts';
import type { TableRef } from './client.ts';
import {
  getGrant,
  grantHolder,
  holdTokens,
  markGrantNeedsReconnect,
  releaseTokens,
  replaceHeldTokens,
} from './grants.ts';
import { getPostReferences } from './post-references.ts';
import { createTag, listTags } from './tags.ts';

/** The AccountStore port over the single table, one entity module per record kind. */
export const dynamoAccountStore = (table: TableRef): AccountStore => ({
  createAccount: (account) => putAccount(table, account),
  getAccount: (accountId) => getAccount(table, accountId),
  setPlan: (accountId, plan) => setAccountPlan(table, accountId, plan),
  createWorkspace: (workspace) => putWorkspace(table, workspace),
  getWorkspace: (accountId, workspaceId) => getWorkspace(table, accountId, workspaceId),
  listWorkspaces: (accountId) => listWorkspaces(table, accountId),
  createApiKey: (key) => putApiKey(table, key),
  connectChannel: (channel, limit) => connectChannel(table, channel, limit),
  getChannel: (workspaceId, channelId) => getChannel(table, workspaceId, channelId),
  getChannelsForJob: (workspaceId, channelIds) => getChannelsForJob(table, workspaceId, channelIds),
  listChannels: (workspaceId) => listChannels(table, workspaceId),
  markNeedsReconnect: (workspaceId, channelId, event) =>
    markNeedsReconnect(table, workspaceId, channelId, event),
  upsertChannel: (base, seal, limit) => upsertChannel(table, base, seal, limit),
  replaceTokens: (workspaceId, channelId, version, update) =>
    replaceTokens(table, workspaceId, channelId, version, update),
  holdRefresh: (workspaceId, channelId, version, owner, now, until) =>
    holdRefresh(table, workspaceId, channelId, version, owner, now, until),
  releaseRefresh: (workspaceId, channelId, owner) => releaseRefresh(table, workspaceId, channelId, owner),
  disconnectChannel: (channel) => disconnectChannel(table, channel),
  channelsDueForRefresh: (now, limit) => channelsDueForRefresh(table, now, limit),
  getGrant: (workspaceId, grantId) => getGrant(table, workspaceId, grantId),
  holdGrantRefresh: (workspaceId, grantId, version, owner, now, until) =>
    holdTokens(table, grantHolder(workspaceId, grantId), version, owner, now, until),
  replaceGrantTokens: (workspaceId, grantId, version, update) =>
    replaceHeldTokens(table, grantHolder(workspaceId, grantId), version, update),
  releaseGrantRefresh: (workspaceId, grantId, owner) =>
    releaseTokens(table, grantHolder(workspaceId, grantId), owner),
  markGrantNeedsReconnect: (workspaceId, grantId) => markGrantNeedsReconnect(table, workspaceId, grantId),
  createTag: (tag) => createTag(table, tag),
  listTags: (workspaceId) => listTags(table, workspaceId),
  getPostReferences: (accountId, workspaceId, channelIds, tagIds, keyHash) =>
    getPostReferences(table, accountId, workspaceId, channelIds, tagIds, keyHash),
});
