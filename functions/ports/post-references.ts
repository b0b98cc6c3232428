import type { Account } from './accounts.ts';
import type { ChannelRecord } from './channels.ts';
import type { KeyWindowRead } from './rate-limiter.ts';
import type { Tag } from './tags.ts';

/** An account and the channels and tags a post names, as one read finds them (absent ones are left out). */
export interface PostReferences {
  account: Account | null;
  channels: ChannelRecord[];
  tags: Tag[];
  /** The API key's item, when asked for by its hash (null: no such key). */
  key?: KeyWindowRead | null;
}

/** The one read a post save makes to check its body: the account, channels and tags it names (and the key). */
export interface PostReferenceStore {
  /**
   * In one read, what a post save checks its body against: the account (when `accountId` is not
   * null) and those of the named channels and tags that exist in the workspace; with `keyHash`,
   * also the API key's item under that hash (see KeyCount).
   */
  getPostReferences(
    accountId: string | null,
    workspaceId: string,
    channelIds: readonly string[],
    tagIds: readonly string[],
    keyHash?: string | null,
  ): Promise<PostReferences>;
}
