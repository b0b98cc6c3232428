import { describe, expect, it } from 'vitest';
import { indexWrites, itemSize } from '../../bench/capacity.ts';

describe("the benchmarks' capacity model (DynamoDB's item size and index rules)", () => {
  it('sizes attributes as DynamoDB does: names and values, numbers by significant digits, lists and maps with overhead', () => {
    expect(itemSize({ PK: 'abc' })).toBe(2 + 3);
    expect(itemSize({ n: 1_700_000_000_000 })).toBe(1 + 2); // "17": one byte per two digits, plus one
    expect(itemSize({ n: 12345 })).toBe(1 + 4);
    expect(itemSize({ n: 0.25 })).toBe(1 + 2);
    expect(itemSize({ b: true, z: null })).toBe(2 + 2);
    expect(itemSize({ l: ['ab', 'c'] })).toBe(1 + 3 + (2 + 1) + (1 + 1));
    expect(itemSize({ m: { k: 'v' } })).toBe(1 + 3 + (1 + 1 + 1));
    expect(itemSize({ s: 'é' })).toBe(1 + 2);
    expect(itemSize({ skipped: undefined })).toBe(0);
    expect(itemSize(undefined)).toBe(0);
  });

  it('charges index writes for an entry added, removed, rewritten or moved (two writes), and none for no change', () => {
    const base = { PK: 'p', SK: 's', a: 'x' };
    const indexed = { ...base, GSI1PK: 'g', GSI1SK: '1' };
    expect(indexWrites(undefined, base)).toBe(0);
    expect(indexWrites(undefined, indexed)).toBe(1);
    expect(indexWrites(indexed, undefined)).toBe(1);
    expect(indexWrites(indexed, { ...indexed })).toBe(0);
    expect(indexWrites(indexed, { ...indexed, a: 'y' })).toBe(1);
    expect(indexWrites(indexed, { ...indexed, GSI1SK: '2' })).toBe(2);
    expect(indexWrites(indexed, base)).toBe(1);
    const big = { ...indexed, blob: 'x'.repeat(3000) };
    expect(indexWrites(big, { ...big, GSI1SK: '2' })).toBe(3 + 3);
    expect(indexWrites(indexed, { ...indexed, GSI2PK: 'h', GSI2SK: '1' })).toBe(2);
  });
});
