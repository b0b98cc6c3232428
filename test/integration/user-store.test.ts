/** Users in the table (UserStore). */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoUserStore } from '../../functions/adapters/aws/dynamo/users.ts';
import { newId } from '../../functions/domain/ids.ts';
import type { User } from '../../functions/ports/users.ts';
import { freshTable } from '../support/table.ts';

let table: Awaited<ReturnType<typeof freshTable>>;

beforeAll(async () => {
  table = await freshTable();
});
afterAll(async () => {
  await table?.drop();
});

describe('users', () => {
  it('reads a user as created, finds no unknown one, and never creates one twice', async () => {
    const store = dynamoUserStore(table);
    const user: User = {
      userId: randomUUID(),
      accountId: newId('acct'),
      email: 'someone@example.com',
      role: 'owner',
      createdAt: new Date().toISOString(),
    };
    await store.createUser(user);
    expect(await store.getUser(user.userId)).toEqual(user);
    expect(await store.getUser(randomUUID())).toBeNull();
    await expect(store.createUser({ ...user, accountId: newId('acct') })).rejects.toThrow();
    expect((await store.getUser(user.userId))?.accountId).toBe(user.accountId);
  });
});
