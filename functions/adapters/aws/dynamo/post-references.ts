import type { PostReferences } from '../../../ports/accounts.ts';
import { isId } from '../../../shared/ids.ts';
import { accountFromItem } from './accounts.ts';
import { channelFromItem } from './channels.ts';
import { batchGetAll, type TableRef } from './client.ts';
import { keys } from './keys.ts';
import { tagFromItem } from './tags.ts';

/**
 * The account and the named channels and tags of a workspace, in one BatchGetItem (eventually
 * consistent, as the Queries it replaces were). Ids of another shape cannot exist and are not
 * asked for (each id becomes a key); repeated ids are asked for once.
 */
export const getPostReferences = async (
  table: TableRef,
  accountId: string | null,
  workspaceId: string,
  channelIds: readonly string[],
  tagIds: readonly string[],
): Promise<PostReferences> => {
  const account = accountId === null ? null : keys.account(accountId);
  const channelSk = keys.channelPrefix(workspaceId).SKPrefix;
  const tagSk = keys.tagPrefix(workspaceId).SKPrefix;
  const wanted = [
    ...(account ? [account] : []),
    ...[...new Set(channelIds)].filter((id) => isId('ch', id)).map((id) => keys.channel(workspaceId, id)),
    ...[...new Set(tagIds)].filter((id) => isId('tag', id)).map((id) => keys.tag(workspaceId, id)),
  ];
  const found: PostReferences = { account: null, channels: [], tags: [] };
  if (wanted.length === 0) return found;
  for (const item of await batchGetAll(table, wanted)) {
    const sk = String(item.SK);
    if (account && item.PK === account.PK && sk === account.SK) found.account = accountFromItem(item);
    else if (sk.startsWith(channelSk)) found.channels.push(channelFromItem(item));
    else if (sk.startsWith(tagSk)) found.tags.push(tagFromItem(item));
  }
  return found;
};
