import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PlanName } from '../../../domain/plans.ts';
import type { Account, AccountStore } from '../../../ports/accounts.ts';
import type { TableRef } from './client.ts';
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

/** The AccountStore port over the table. */
export const dynamoAccountStore = (table: TableRef): AccountStore => ({
  createAccount: (account) => putAccount(table, account),
  getAccount: (accountId) => getAccount(table, accountId),
  setPlan: (accountId, plan) => setAccountPlan(table, accountId, plan),
});
