/**
 * DynamoDB capacity by AWS's on-demand rules, for requests made against DynamoDB Local (which
 * reports plain reads and writes correctly but undercounts transactions: a transaction of a
 * 1.5 KB put, a small put and an update of a 1.5 KB item is 10 WCU on AWS, 6 as it reports).
 *
 * Rules: a write is 1 WCU per started KB of the item (the larger of before and after; 2 per KB
 * in a transaction, a ConditionCheck included), plus 1 WCU per started KB for each global index
 * the item has keys in; a read is 1 RCU per started 4 KB strongly consistent, half that
 * eventually consistent, twice in a transaction; a Query or Scan rounds the total it returns to
 * 4 KB; a BatchGetItem prices each item. Item size follows DynamoDB's rules (`itemSize`).
 */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TABLE_KEYS } from '../functions/adapters/aws/dynamo/keys.ts';

export interface Capacity {
  rcu: number;
  wcu: number;
}

type Item = Record<string, unknown>;
/** The size of the stored item with this key after the request (looked up outside any function). */
export type SizeOf = (tableName: string, key: Item) => Promise<number>;

/**
 * The size of a value as DynamoDB counts it: strings and binaries their bytes, a number about one
 * byte per two significant digits plus one, booleans and nulls one byte, lists and maps 3 bytes
 * plus one per element plus their elements (a map's with their names).
 */
const valueSize = (value: unknown): number => {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') {
    const digits = String(value)
      .replace(/^-|\.|e.*$/g, '')
      .replace(/^0+|0+$/g, '').length;
    return Math.ceil(Math.max(1, digits) / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((n: number, v) => n + valueSize(v), 0);
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + 1 + valueSize(v), 3);
  if (typeof value === 'object')
    return Object.entries(value).reduce(
      (n: number, [name, v]) => (v === undefined ? n : n + 1 + Buffer.byteLength(name) + valueSize(v)),
      3,
    );
  return Buffer.byteLength(String(value));
};

/** An item's size by DynamoDB's rules: each attribute's name and value. */
export const itemSize = (item: Item | undefined): number =>
  item
    ? Object.entries(item).reduce(
        (n, [name, v]) => (v === undefined ? n : n + Buffer.byteLength(name) + valueSize(v)),
        0,
      )
    : 0;
const size = itemSize;
const kb = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
const fourKb = (bytes: number) => Math.max(1, Math.ceil(bytes / 4096));

const INDEX_KEYS = [TABLE_KEYS.gsi1.partitionKey, TABLE_KEYS.gsi2.partitionKey];
/** Write units of the global indexes an item (as written) has keys in. */
const indexWrites = (item: Item | undefined, bytes: number): number =>
  item ? INDEX_KEYS.filter((k) => k in item).length * kb(bytes) : 0;

/** The item a write leaves (an update's or condition check's looked up after the request). */
const written = async (action: Item, sizeOf: SizeOf): Promise<{ bytes: number; indexes: number }> => {
  if (action.Item) {
    const item = action.Item as Item;
    return { bytes: size(item), indexes: indexWrites(item, size(item)) };
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
  const readFactor = input.ConsistentRead ? 1 : 0.5;
  switch (command) {
    case 'GetItem':
      return { rcu: fourKb(size(output.Item as Item)) * readFactor, wcu: 0 };
    case 'Query':
    case 'Scan': {
      const bytes = ((output.Items as Item[] | undefined) ?? []).reduce((n, item) => n + size(item), 0);
      return { rcu: fourKb(bytes) * readFactor, wcu: 0 };
    }
    case 'BatchGetItem': {
      let rcu = 0;
      const requested = input.RequestItems as Record<string, { ConsistentRead?: boolean }>;
      for (const [table, items] of Object.entries((output.Responses as Record<string, Item[]>) ?? {})) {
        const factor = requested[table]?.ConsistentRead ? 1 : 0.5;
        for (const item of items) rcu += fourKb(size(item)) * factor;
      }
      return { rcu, wcu: 0 };
    }
    case 'TransactGetItems': {
      let rcu = 0;
      for (const r of (output.Responses as { Item?: Item }[] | undefined) ?? [])
        rcu += 2 * fourKb(size(r.Item));
      return { rcu, wcu: 0 };
    }
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
          wcu += put ? kb(size(put)) + indexWrites(put, size(put)) : 1;
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
      return { rcu: 0, wcu: 0 };
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
