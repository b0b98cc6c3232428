import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Workspace, WorkspaceStore } from '../../../ports/workspaces.ts';
import { queryByPrefix, type TableRef } from './client.ts';
import { keys } from './keys.ts';

export const workspaceToItem = (w: Workspace) => ({
  ...keys.workspace(w.accountId, w.workspaceId),
  type: 'Workspace',
  ...w,
});
export const workspaceFromItem = (item: Record<string, unknown>): Workspace => ({
  workspaceId: item.workspaceId as string,
  accountId: item.accountId as string,
  name: item.name as string,
  createdAt: item.createdAt as string,
});

/**
 * A new workspace, with its count of webhook endpoints (0) in the same transaction: until an
 * endpoint is created, its events are not kept (see `outboxItems`).
 */
export const putWorkspace = async ({ doc, tableName }: TableRef, workspace: Workspace): Promise<void> => {
  await doc.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: tableName,
            Item: workspaceToItem(workspace),
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        {
          Put: {
            TableName: tableName,
            Item: { ...keys.webhookCount(workspace.workspaceId), type: 'WebhookCount', endpoints: 0 },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
      ],
    }),
  );
};

export const getWorkspace = async (
  { doc, tableName }: TableRef,
  accountId: string,
  workspaceId: string,
): Promise<Workspace | null> => {
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.workspace(accountId, workspaceId) }),
  );
  return out.Item ? workspaceFromItem(out.Item) : null;
};

export const listWorkspaces = async (table: TableRef, accountId: string): Promise<Workspace[]> =>
  (await queryByPrefix(table, keys.account(accountId).PK, 'WORKSPACE#')).map(workspaceFromItem);

/** The WorkspaceStore port over the table. */
export const dynamoWorkspaceStore = (table: TableRef): WorkspaceStore => ({
  createWorkspace: (workspace) => putWorkspace(table, workspace),
  getWorkspace: (accountId, workspaceId) => getWorkspace(table, accountId, workspaceId),
  listWorkspaces: (accountId) => listWorkspaces(table, accountId),
});
