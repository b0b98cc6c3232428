/**
 * Reading a stored item back into a record: each entity module's `fromItem` checks the fields its
 * record cannot do without (ids, states, counters) with a zod schema, upgrades the shapes older
 * items were written in, and throws `MalformedItemError` for anything else: never a silent
 * `undefined` further on. The schemas are loose: fields they do not name pass through as stored.
 */
import type { z } from 'zod';

/** A stored item that is not the kind it should be: names the kind, its key and the fields at fault. */
export class MalformedItemError extends Error {
  constructor(
    readonly kind: string,
    readonly key: string,
    readonly problem: string,
  ) {
    super(`The stored ${kind} item ${key} is malformed: ${problem}`);
    this.name = 'MalformedItemError';
  }
}

/** The item's table key as text (`PK SK`), for errors. */
export const itemKey = (item: Record<string, unknown>): string =>
  `${typeof item.PK === 'string' ? item.PK : '(no PK)'} ${typeof item.SK === 'string' ? item.SK : '(no SK)'}`;

/** The table's own attributes, never part of a record. */
const TABLE_ATTRIBUTES = ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK', 'type'];

/** `item` without the table's keys and `type` tag. */
export const withoutKeys = (item: Record<string, unknown>): Record<string, unknown> => {
  const fields = { ...item };
  for (const name of TABLE_ATTRIBUTES) delete fields[name];
  return fields;
};

/**
 * `item`'s fields (without the table's keys) read with `schema`, after `upgrade` (older shapes);
 * the problem names the fields and what is wrong with them, never their values (an item may hold
 * a secret).
 */
export const parseItem = <T>(
  kind: string,
  schema: z.ZodType<T>,
  item: Record<string, unknown>,
  upgrade: (fields: Record<string, unknown>) => Record<string, unknown> = (fields) => fields,
): T => {
  const result = schema.safeParse(upgrade(withoutKeys(item)));
  if (result.success) return result.data;
  const problem = result.error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(item)'}: ${issue.code}`)
    .join('; ');
  throw new MalformedItemError(kind, itemKey(item), problem);
};
