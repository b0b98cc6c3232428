import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dynamoAccountStore } from '../../functions/adapters/aws/dynamo/accounts.ts';
import { dynamoKeyStore } from '../../functions/adapters/aws/dynamo/api-keys.ts';
import { dynamoChannelStore } from '../../functions/adapters/aws/dynamo/channels.ts';
import type { TableRef } from '../../functions/adapters/aws/dynamo/client.ts';
import { dynamoGrantStore } from '../../functions/adapters/aws/dynamo/grants.ts';
import { dynamoTagStore } from '../../functions/adapters/aws/dynamo/tags.ts';
import { dynamoWorkspaceStore } from '../../functions/adapters/aws/dynamo/workspaces.ts';
import { FileTokenCipher, loadOrCreateKey } from '../../functions/adapters/local/file-token-cipher.ts';
import type { AdminDeps } from '../../functions/core/admin/admin.ts';
import { type Clock, systemClock } from '../../functions/ports/clock.ts';
import type { GrantStore } from '../../functions/ports/grants.ts';

/** A token cipher with a key of its own, in a fresh temporary directory. */
export const tempCipher = () =>
  new FileTokenCipher(loadOrCreateKey(join(mkdtempSync(join(tmpdir(), 'herald-')), 'k')));

/** Every store of the table, with a clock and a cipher: what the operator commands (AdminDeps) and the token service use. */
export type StoreDeps = AdminDeps & { grants: GrantStore };

/** The stores over `table`, with a cipher of their own. */
export const tableStores = (table: TableRef, clock: Clock = systemClock): StoreDeps => {
  const cipher = tempCipher();
  return {
    accounts: dynamoAccountStore(table),
    workspaces: dynamoWorkspaceStore(table),
    apiKeys: dynamoKeyStore(table),
    channels: dynamoChannelStore(table),
    grants: dynamoGrantStore(table),
    tags: dynamoTagStore(table),
    clock,
    tokenCipher: () => cipher,
  };
};
