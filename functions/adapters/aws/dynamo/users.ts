import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import type { User, UserStore } from '../../../ports/users.ts';
import type { TableRef } from './client.ts';
import { parseItem } from './item.ts';
import { keys } from './keys.ts';

export const userToItem = (u: User) => ({ ...keys.user(u.userId), type: 'User', ...u });
const userSchema: z.ZodType<User> = z.object({
  userId: z.string().min(1),
  accountId: z.string().min(1),
  email: z.string(),
  role: z.literal('owner'),
  createdAt: z.string(),
});

/** A user item as its record; `MalformedItemError` if it is not one. */
export const userFromItem = (item: Record<string, unknown>): User => parseItem('User', userSchema, item);

export const putUser = async ({ doc, tableName }: TableRef, user: User): Promise<void> => {
  await doc.send(
    new PutCommand({
      TableName: tableName,
      Item: userToItem(user),
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
};

export const getUser = async ({ doc, tableName }: TableRef, userId: string): Promise<User | null> => {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: keys.user(userId) }));
  return out.Item ? userFromItem(out.Item) : null;
};

/** The UserStore port over the table. */
export const dynamoUserStore = (table: TableRef): UserStore => ({
  createUser: (user) => putUser(table, user),
  getUser: (userId) => getUser(table, userId),
});
