/**
 * DynamoDB capacity by AWS's on-demand rules, for requests made against DynamoDB Local (which
 * reports plain reads and writes but undercounts transactions and reports no index writes: a
 * transaction of a 1.5 KB put, a small put and an update of a 1.5 KB item is 10 WCU on AWS, 6 as
 * it reports).
 *
 * Rules (DynamoDB developer guide, "Item sizes and formats", "Read/write capacity mode",
 * "Provisioned throughput considerations for global secondary indexes"):
 * - an item's size is the sum of its attribute names and values: a string its UTF-8 bytes, a
 *   number 1 byte per two significant digits plus 1, a binary its bytes, a boolean or null 1 byte,
 *   a list or map 3 bytes plus its elements plus 1 byte per element;
 * - a write is 1 WCU per started KB of the larger of the item before and after it (2 per KB in a
 *   transaction, a ConditionCheck included); a write refused by its condition still costs the
 *   item as it stands;
 * - each global index (both project ALL) costs 1 WCU per started KB for an entry written or
 *   removed: a new entry, a removed one, an entry rewritten because the item changed, and two
 *   writes (removal and new entry) when the item's index key changes;
 * - a read is 1 RCU per started 4 KB strongly consistent, half that eventually consistent, twice
 *   in a transaction; a Query or Scan rounds the total it returns up to 4 KB; a BatchGetItem prices
 *   each item.
 *
 * Two ways to use it: `createMeter` looks each written item up before and after the write (exact,
 * but a round trip more per write: for runs that are not timed), and `awsCapacity` with
 * `batchedSizeOf` prices requests afterwards from the items' sizes at the end (no lookup while the
 * run is timed; an update is priced by the item's final size, and its index writes only when it
 * sets an index key).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE_KEYS } from '../functions/adapters/aws/dynamo/keys.ts';

export interface Capacity {
  rcu: number;
  wcu: number;
}

/** A request's capacity as the meter prices it, with the largest item a write left (0 for a read). */
export interface Metered extends Capacity {
  largestItem: number;
}

type Item = Record<string, unknown>;

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/** Bytes of a number: 1 per two significant digits (leading and trailing zeros trimmed), plus 1. */
const numberSize = (n: number | string | bigint): number => {
  const digits = String(n)
    .replace(/^-/, '')
    .replace(/e.*$/i, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
};

/** Bytes of one attribute value as the document client writes it (native JavaScript values). */
const valueSize = (value: unknown): number => {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number' || typeof value === 'bigint') return numberSize(value);
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) {
    let bytes = 0;
    for (const element of value) bytes += valueSize(element);
    return bytes;
  }
  if (Array.isArray(value)) return value.reduce((n: number, element) => n + valueSize(element) + 1, 3);
  let bytes = 3;
  for (const [name, element] of Object.entries(value as Item)) {
    if (element !== undefined) bytes += utf8(name) + valueSize(element) + 1;
  }
  return bytes;
};

/** An item's size by DynamoDB's rules (0 for no item). */
export const itemSize = (item: Item | undefined): number => {
  if (!item) return 0;
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value !== undefined) bytes += utf8(name) + valueSize(value);
  }
  return bytes;
};

const kb = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
const fourKb = (bytes: number) => Math.max(1, Math.ceil(bytes / 4096));

const INDEXES = [TABLE_KEYS.gsi1, TABLE_KEYS.gsi2];
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Write units the global indexes take when an item goes from `before` to `after`. */
export const indexWrites = (before: Item | undefined, after: Item | undefined): number => {
  let wcu = 0;
  for (const index of INDEXES) {
    const had = before !== undefined && index.partitionKey in before && index.sortKey in before;
    const has = after !== undefined && index.partitionKey in after && index.sortKey in after;
    if (had && has) {
      const moved =
        before[index.partitionKey] !== after[index.partitionKey] ||
        before[index.sortKey] !== after[index.sortKey];
      if (moved) wcu += kb(itemSize(before)) + kb(itemSize(after));
      else if (!sameJson(before, after)) wcu += kb(itemSize(after));
    } else if (had) wcu += kb(itemSize(before));
    else if (has) wcu += kb(itemSize(after));
  }
  return wcu;
};

/** One item a write request touches: its table and key. */
interface Target {
  table: string;
  key: Item;
}

const keyOf = (item: Item): Item => ({
  [TABLE_KEYS.partitionKey]: item[TABLE_KEYS.partitionKey],
  [TABLE_KEYS.sortKey]: item[TABLE_KEYS.sortKey],
});

/** The items a write request touches, in the order of its actions (none for a read). */
const targetsOf = (command: string, input: Item): Target[] => {
  const one = (body: Item): Target => ({
    table: String(body.TableName),
    key: body.Item ? keyOf(body.Item as Item) : (body.Key as Item),
  });
  switch (command) {
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [one(input)];
    case 'TransactWriteItems':
      return (input.TransactItems as Item[]).map((action) => one(Object.values(action)[0] as Item));
    case 'BatchWriteItem':
      return Object.entries(input.RequestItems as Record<string, Item[]>).flatMap(([table, requests]) =>
        requests.map((r) => {
          const put = (r.PutRequest as { Item?: Item } | undefined)?.Item;
          return { table, key: put ? keyOf(put) : ((r.DeleteRequest as { Key: Item }).Key as Item) };
        }),
      );
    default:
      return [];
  }
};

/** Read units of a read request, from its answer. */
const readUnits = (command: string, input: Item, output: Item): number => {
  const factor = input.ConsistentRead ? 1 : 0.5;
  switch (command) {
    case 'GetItem':
      return fourKb(itemSize(output.Item as Item | undefined)) * factor;
    case 'Query':
    case 'Scan': {
      const items = (output.Items as Item[] | undefined) ?? [];
      return fourKb(items.reduce((n, item) => n + itemSize(item), 0)) * factor;
    }
    case 'BatchGetItem': {
      let rcu = 0;
      const requested = input.RequestItems as Record<string, { ConsistentRead?: boolean }>;
      for (const [table, items] of Object.entries((output.Responses as Record<string, Item[]>) ?? {})) {
        const itemFactor = requested[table]?.ConsistentRead ? 1 : 0.5;
        for (const item of items) rcu += fourKb(itemSize(item)) * itemFactor;
      }
      return rcu;
    }
    case 'TransactGetItems':
      return ((output.Responses as { Item?: Item }[] | undefined) ?? []).reduce(
        (n, r) => n + 2 * fourKb(itemSize(r.Item)),
        0,
      );
    default:
      return 0;
  }
};

/**
 * Prices requests by AWS's rules. Items are looked up before and after each write with a client
 * of the meter's own (consistent reads outside whatever counts requests), so a write is priced by
 * the item it replaced and the item it left.
 */
export const createMeter = (client: DynamoDBClient) => {
  const doc = DynamoDBDocumentClient.from(client);
  const lookup = async ({ table, key }: Target): Promise<Item | undefined> =>
    (await doc.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;
  return {
    /**
     * Call before sending a request (`command` without the `Command` suffix, its input as the
     * document client gives it); then call the answer with the request's output, or with nothing
     * when it was refused, for its capacity.
     */
    start: async (command: string, input: Item) => {
      const targets = targetsOf(command, input);
      const before = await Promise.all(targets.map(lookup));
      return async (output?: Item): Promise<Metered> => {
        if (targets.length === 0) {
          return { rcu: output ? readUnits(command, input, output) : 0, wcu: 0, largestItem: 0 };
        }
        const factor = command === 'TransactWriteItems' ? 2 : 1;
        // Refused (a failed condition or a cancelled transaction): each item as it stands.
        if (!output) {
          return {
            rcu: 0,
            wcu: before.reduce((n, item) => n + factor * kb(itemSize(item)), 0),
            largestItem: 0,
          };
        }
        const after = await Promise.all(targets.map(lookup));
        let wcu = 0;
        let largestItem = 0;
        targets.forEach((_, i) => {
          const [was, is] = [itemSize(before[i]), itemSize(after[i])];
          wcu += factor * kb(Math.max(was, is)) + indexWrites(before[i], after[i]);
          largestItem = Math.max(largestItem, is);
        });
        return { rcu: 0, wcu, largestItem };
      };
    },
  };
};

/** The size of the stored item with this key at the end of the run (looked up outside any function). */
export type SizeOf = (tableName: string, key: Item) => Promise<number>;

const INDEX_KEYS = [TABLE_KEYS.gsi1.partitionKey, TABLE_KEYS.gsi2.partitionKey];
/** Write units of the global indexes an item (as written) has keys in. */
const keyedIndexWrites = (item: Item | undefined, bytes: number): number =>
  item ? INDEX_KEYS.filter((k) => k in item).length * kb(bytes) : 0;

/** The item a write leaves (an update's or condition check's looked up after the request). */
const written = async (action: Item, sizeOf: SizeOf): Promise<{ bytes: number; indexes: number }> => {
  if (action.Item) {
    const item = action.Item as Item;
    return { bytes: itemSize(item), indexes: keyedIndexWrites(item, itemSize(item)) };
  }
  const key = action.Key as Item;
  const bytes = await sizeOf(String(action.TableName), key);
  // An update rewrites the index entries of an item that has them (projection ALL); the item's
  // own index keys are not known here without reading it whole, so only the base write is priced
  // for updates and deletes, and their index writes are counted when the index keys are set.
  const sets = String(action.UpdateExpression ?? '');
  const indexes = INDEX_KEYS.filter((k) => sets.includes(k)).length * kb(bytes);
  return { bytes, indexes };
};

/** The capacity one request consumed by AWS's rules (`output` is its answer). */
export const awsCapacity = async (
  command: string,
  input: Item,
  output: Item,
  sizeOf: SizeOf,
): Promise<Capacity> => {
  switch (command) {
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem': {
      const w = await written(input, sizeOf);
      return { rcu: 0, wcu: kb(w.bytes) + w.indexes };
    }
    case 'BatchWriteItem': {
      let wcu = 0;
      for (const requests of Object.values(input.RequestItems as Record<string, Item[]>)) {
        for (const r of requests) {
          const put = (r.PutRequest as { Item?: Item } | undefined)?.Item;
          wcu += put ? kb(itemSize(put)) + keyedIndexWrites(put, itemSize(put)) : 1;
        }
      }
      return { rcu: 0, wcu };
    }
    case 'TransactWriteItems': {
      let wcu = 0;
      for (const action of input.TransactItems as Item[]) {
        const [kind, body] = Object.entries(action)[0] as [string, Item];
        const w = kind === 'Delete' ? { bytes: 1, indexes: 0 } : await written(body, sizeOf);
        wcu += 2 * kb(w.bytes) + w.indexes;
      }
      return { rcu: 0, wcu };
    }
    default:
      return { rcu: readUnits(command, input, output), wcu: 0 };
  }
};

/**
 * Sizes of stored items by key, read (strongly) with `doc` in batches of up to 100 keys, each key
 * once: asked many times over, the sizes cost a few BatchGetItems.
 */
export const batchedSizeOf = (doc: DynamoDBDocumentClient): SizeOf => {
  const known = new Map<string, Promise<number>>();
  let queued: { tableName: string; key: Item; resolve: (n: number) => void; reject: (e: unknown) => void }[] =
    [];
  const flush = async () => {
    const batch = queued;
    queued = [];
    const tables = new Map<string, typeof batch>();
    for (const q of batch) {
      const list = tables.get(q.tableName) ?? [];
      list.push(q);
      tables.set(q.tableName, list);
    }
    for (const [tableName, asked] of tables)
      for (let i = 0; i < asked.length; i += 100) {
        const part = asked.slice(i, i + 100);
        try {
          const found = new Map<string, number>();
          let pending = part.map((p) => p.key);
          while (pending.length > 0) {
            const out = await doc.send(
              new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }),
            );
            for (const item of out.Responses?.[tableName] ?? [])
              found.set(`${item.PK}|${item.SK}`, itemSize(item));
            pending = (out.UnprocessedKeys?.[tableName]?.Keys ?? []) as Item[];
          }
          for (const p of part) p.resolve(found.get(`${p.key.PK}|${p.key.SK}`) ?? 0);
        } catch (error) {
          for (const p of part) p.reject(error);
        }
      }
  };
  return (tableName, key) => {
    const id = `${tableName}|${key.PK}|${key.SK}`;
    let size = known.get(id);
    if (!size) {
      size = new Promise<number>((resolve, reject) => {
        if (queued.length === 0) setImmediate(() => void flush());
        queued.push({ tableName, key: { PK: key.PK, SK: key.SK }, resolve, reject });
      });
      known.set(id, size);
    }
    return size;
  };
};
