import { describe, expect, it } from 'vitest';
import { userFromItem, userToItem } from '../../functions/adapters/aws/dynamo/users.ts';
import type { User } from '../../functions/ports/users.ts';
import { thrownMalformed as thrown } from '../support/items.ts';

const user: User = {
  userId: '3f6c-sub',
  accountId: 'acct_1',
  email: 'owner@example.com',
  role: 'owner',
  createdAt: '2026-11-29T10:00:00.000Z',
};

describe('user items', () => {
  it('are keyed by the user pool sub and read back as the record, without the table keys', () => {
    const item = userToItem(user);
    expect(item).toMatchObject({ PK: 'USER#3f6c-sub', SK: 'USER', type: 'User' });
    expect(userFromItem(item)).toEqual(user);
  });

  it('refuse an item with no account or an unknown role, naming its key and the fields, not their values', () => {
    const error = thrown(() =>
      userFromItem({ ...userToItem(user), accountId: undefined, role: 'superuser' }),
    );
    expect(error.kind).toBe('User');
    expect(error.key).toBe('USER#3f6c-sub USER');
    expect(error.problem).toContain('accountId');
    expect(error.problem).toContain('role');
    expect(error.message).not.toContain('superuser');
  });
});
