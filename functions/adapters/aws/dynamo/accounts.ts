import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { isPlanName, type PlanName } from '../../../domain/plans.ts';
import type { Account, AccountStore } from '../../../ports/accounts.ts';
import type { TableRef } from './client.ts';
import { parseItem } from './item.ts';
import { keys } from './keys.ts';

export const accountToItem = (a: Account) => ({ ...keys.account(a.accountId), type: 'Account', ...a });
const accountSchema: z.ZodType<Account> = z.object({
  accountId: z.string(),
  name: z.string(),
  plan: z.custom<PlanName>((plan) => typeof plan === 'string' && isPlanName(plan)),
  channelCount: z.number().int(),
  storageBytes: z.number(),
  createdAt: z.string(),
});

/**
 * The counters are kept with ADD, whose conditions take an absent counter as nothing counted: an
 * account has no `storageBytes` until its first upload, and one without a `channelCount` (accounts
 * are created with 0; an item written otherwise) has no channel counted.
 */
const absentCountersAsZero = (fields: Record<string, unknown>): Record<string, unknown> => ({
  ...fields,
  channelCount: fields.channelCount ?? 0,
  storageBytes: fields.storageBytes ?? 0,
});

/** An account item as its record; `MalformedItemError` if it is not one. */
export const accountFromItem = (item: Record<string, unknown>): Account =>
  parseItem('Account', accountSchema, item, absentCountersAsZero);

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
