import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import type { Workspace, WorkspaceStore } from '../../../ports/workspaces.ts';
import { isConditionFailure, queryByPrefix, type TableRef } from './client.ts';
import { parseItem } from './item.ts';
import { keys } from './keys.ts';

export const workspaceToItem = (w: Workspace) => ({
  ...keys.workspace(w.accountId, w.workspaceId),
  type: 'Workspace',
  ...w,
});
const workspaceSchema: z.ZodType<Workspace> = z.object({
  workspaceId: z.string(),
  accountId: z.string(),
  name: z.string(),
  createdAt: z.string(),
});

/** A workspace item as its record; `MalformedItemError` if it is not one. */
export const workspaceFromItem = (item: Record<string, unknown>): Workspace =>
  parseItem('Workspace', workspaceSchema, item);

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

export const renameWorkspace = async (
  { doc, tableName }: TableRef,
  accountId: string,
  workspaceId: string,
  name: string,
): Promise<Workspace | null> => {
  try {
    const out = await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.workspace(accountId, workspaceId),
        UpdateExpression: 'SET #name = :name',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#name': 'name' },
        ExpressionAttributeValues: { ':name': name },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return workspaceFromItem(out.Attributes ?? {});
  } catch (error) {
    if (isConditionFailure(error)) return null;
    throw error;
  }
};

/** The WorkspaceStore port over the table. */
export const dynamoWorkspaceStore = (table: TableRef): WorkspaceStore => ({
  createWorkspace: (workspace) => putWorkspace(table, workspace),
  getWorkspace: (accountId, workspaceId) => getWorkspace(table, accountId, workspaceId),
  listWorkspaces: (accountId) => listWorkspaces(table, accountId),
  renameWorkspace: (accountId, workspaceId, name) => renameWorkspace(table, accountId, workspaceId, name),
});
