import type { AccountStore } from '../../../ports/accounts.ts';
import {
  getAccount,
  getWorkspace,
  listWorkspaces,
  putAccount,
  putWorkspace,
  setAccountPlan,
} from './accounts.ts';
import { getApiKey, putApiKey } from './api-keys.ts';
import { connectChannel, getChannel, listChannels, markNeedsReconnect } from './channels.ts';
import type { TableRef } from './client.ts';
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
  findApiKey: (secretHash) => getApiKey(table, secretHash),
  connectChannel: (channel, limit) => connectChannel(table, channel, limit),
  getChannel: (workspaceId, channelId) => getChannel(table, workspaceId, channelId),
  listChannels: (workspaceId) => listChannels(table, workspaceId),
  markNeedsReconnect: (workspaceId, channelId) => markNeedsReconnect(table, workspaceId, channelId),
  createTag: (tag) => createTag(table, tag),
  listTags: (workspaceId) => listTags(table, workspaceId),
});
