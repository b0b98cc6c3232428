import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PlanName } from '../../../domain/plans.ts';
import type { Account, Workspace } from '../../../ports/accounts.ts';
import { queryByPrefix, type TableRef } from './client.ts';
import { keys } from './keys.ts';

export const accountToItem = (a: Account) => ({ ...keys.account(a.accountId), type: 'Account', ...a });
export const accountFromItem = (item: Record<string, unknown>): Account => ({
  accountId: item.accountId as string,
  name: item.name as string,
  plan: item.plan as PlanName,
  channelCount: (item.channelCount as number | undefined) ?? 0,
  storageBytes: (item.storageBytes as number | undefined) ?? 0,
  createdAt: item.createdAt as string,
});

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

export const putAccount = async ({ doc, tableName }: TableRef, account: Account): Promise<void> => {
  await doc.send(
    new PutCommand({
      TableName: tableName,
      Item: accountToItem(account),
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
};

export const getAccount = async (
  { doc, tableName }: TableRef,
  accountId: string,
): Promise<Account | null> => {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: keys.account(accountId) }));
  return out.Item ? accountFromItem(out.Item) : null;
};

export const setAccountPlan = async ({ doc, tableName }: TableRef, accountId: string, plan: PlanName) => {
  await doc.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.account(accountId),
      UpdateExpression: 'SET #plan = :plan',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#plan': 'plan' },
      ExpressionAttributeValues: { ':plan': plan },
    }),
  );
};

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
