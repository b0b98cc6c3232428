/**
 * Composition per capability (functions/runtime/compose.ts): a function sees the base and the
 * parts it composed, nothing else. What each function's bundle carries is checked by
 * test/infra/function-bundles.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { compose, override, part, reset } from '../../functions/runtime/compose.ts';
import { blobs } from '../../functions/runtime/parts/blobs.ts';
import { posts } from '../../functions/runtime/parts/posts.ts';

const BASE_KEYS = ['clock', 'table', 'dynamo', 'accounts', 'rateLimiter', 'settings'];

afterEach(() => reset());

describe('compose', () => {
  it('gives a function the base and its parts, and nothing it did not compose', () => {
    const deps = compose(posts) as unknown as Record<string, unknown>;
    expect(Object.keys(deps).sort()).toEqual([...BASE_KEYS, 'overduePosts', 'posts'].sort());
    // Another function's capability is absent, not lazily built behind its back.
    expect(deps.blobs).toBeUndefined();
    expect(deps.networks).toBeUndefined();
    expect(Object.isFrozen(deps)).toBe(true);
  });

  it('builds each part once per process and shares it between the functions that compose it', () => {
    let builds = 0;
    const counted = part({
      name: 'counted-once',
      keys: ['countedOnce'],
      build: (): { countedOnce: number } => ({ countedOnce: ++builds }),
    });
    const one = compose(counted);
    const two = compose(counted, posts);
    expect(builds).toBe(0);
    expect(one.countedOnce).toBe(1);
    expect(two.countedOnce).toBe(1);
    expect(builds).toBe(1);
    reset();
    expect(two.countedOnce).toBe(2);
  });

  it("hands a part's builder the base and its needs only", () => {
    let seen: string[] = [];
    const probe = part({
      name: 'needs-probe',
      keys: ['needsProbe'],
      needs: [posts],
      build: (deps): { needsProbe: true } => {
        seen = Object.keys(deps);
        return { needsProbe: true };
      },
    });
    expect(compose(probe, blobs).needsProbe).toBe(true);
    expect(seen.sort()).toEqual([...BASE_KEYS, 'overduePosts', 'posts'].sort());
  });

  it('refuses a part whose builder does not return exactly its keys', () => {
    const liar = part({
      name: 'liar',
      keys: ['promised'],
      build: () => ({ promised: 1, extra: 2 }) as { promised: number },
    });
    expect(() => compose(liar).promised).toThrow(/liar built \[promised,extra\], not its keys \[promised\]/);
  });

  it('lets an override reach every view of the field, and restores it', () => {
    const deps = compose(posts);
    const real = deps.clock;
    const fixed = { now: () => new Date('2030-01-01T00:00:00Z') };
    const restore = override({ clock: fixed });
    expect(deps.clock).toBe(fixed);
    expect(compose().clock).toBe(fixed);
    restore();
    expect(deps.clock).toBe(real);
    expect(() => override({ noSuchField: 1 })).toThrow(/No part provides noSuchField/);
  });
});
