import { isId } from '../../../domain/ids.ts';
import type { PostReferenceStore, PostReferences } from '../../../ports/post-references.ts';
import { accountFromItem } from './accounts.ts';
import { keyWindowFromItem } from './api-keys.ts';
import { channelFromItem } from './channels.ts';
import { batchGetAll, type TableRef } from './client.ts';
import { keys } from './keys.ts';
import { tagFromItem } from './tags.ts';

/**
 * The account and the named channels and tags of a workspace, in one BatchGetItem (eventually
 * consistent, as the Queries it replaces were). Ids of another shape cannot exist and are not
 * asked for (each id becomes a key); repeated ids are asked for once. With `keyHash`, the API
 * key's item under that hash comes in the same read (`key`, null when there is none): a stale
 * copy is harmless, as the write that counts the request in it checks what it relies on.
 */
export const getPostReferences = async (
  table: TableRef,
  accountId: string | null,
  workspaceId: string,
  channelIds: readonly string[],
  tagIds: readonly string[],
  keyHash: string | null = null,
): Promise<PostReferences> => {
  const account = accountId === null ? null : keys.account(accountId);
  const apiKey = keyHash === null ? null : keys.apiKey(keyHash);
  const channelSk = keys.channelPrefix(workspaceId).SKPrefix;
  const tagSk = keys.tagPrefix(workspaceId).SKPrefix;
  const wanted = [
    ...(apiKey ? [apiKey] : []),
    ...(account ? [account] : []),
    ...[...new Set(channelIds)].filter((id) => isId('ch', id)).map((id) => keys.channel(workspaceId, id)),
    ...[...new Set(tagIds)].filter((id) => isId('tag', id)).map((id) => keys.tag(workspaceId, id)),
  ];
  const found: PostReferences = { account: null, channels: [], tags: [], ...(apiKey ? { key: null } : {}) };
  if (wanted.length === 0) return found;
  for (const item of await batchGetAll(table, wanted)) {
    const sk = String(item.SK);
    if (apiKey && item.PK === apiKey.PK && sk === apiKey.SK) found.key = keyWindowFromItem(item);
    else if (account && item.PK === account.PK && sk === account.SK) found.account = accountFromItem(item);
    else if (sk.startsWith(channelSk)) found.channels.push(channelFromItem(item));
    else if (sk.startsWith(tagSk)) found.tags.push(tagFromItem(item));
  }
  return found;
};

/** The PostReferenceStore port over the table. */
export const dynamoPostReferences = (table: TableRef): PostReferenceStore => ({
  getPostReferences: (accountId, workspaceId, channelIds, tagIds, keyHash) =>
    getPostReferences(table, accountId, workspaceId, channelIds, tagIds, keyHash),
});
