/**
 * Composition per capability (functions/runtime/compose.ts): a function sees the base and the
 * parts it composed, nothing else. What each function's bundle carries is checked by
 * test/infra/function-bundles.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { Container, compose, part } from '../../functions/runtime/compose.ts';
import { blobs } from '../../functions/runtime/parts/blobs.ts';
import { posts } from '../../functions/runtime/parts/posts.ts';
import { ENV, env } from '../../functions/shared/env.ts';

const BASE_KEYS = ['clock', 'table', 'dynamo', 'rateLimiter', 'settings'];

describe('compose', () => {
  it('gives a function the base and its parts, and nothing it did not compose', () => {
    const deps = compose(posts) as unknown as Record<string, unknown>;
    expect(Object.keys(deps).sort()).toEqual(
      [...BASE_KEYS, 'overduePosts', 'postReferences', 'postTimelines', 'posts'].sort(),
    );
    // Another function's capability is absent, not lazily built behind its back.
    expect(deps.blobs).toBeUndefined();
    expect(deps.networks).toBeUndefined();
    expect(Object.isFrozen(deps)).toBe(true);
  });

  it('builds each part once per container and shares it between the functions that compose it', () => {
    let builds = 0;
    const counted = part({
      name: 'counted-once',
      keys: ['countedOnce'],
      build: (): { countedOnce: number } => ({ countedOnce: ++builds }),
    });
    const container = new Container();
    const one = container.compose(counted);
    const two = container.compose(counted, posts);
    // A handler module's view, composed at module scope, reads the container it runs in.
    const handlers = compose(counted);
    expect(builds).toBe(0);
    expect(one.countedOnce).toBe(1);
    expect(two.countedOnce).toBe(1);
    expect(container.run(() => handlers.countedOnce)).toBe(1);
    expect(builds).toBe(1);
    const other = new Container();
    expect(other.run(() => handlers.countedOnce)).toBe(2);
    expect(one.countedOnce).toBe(1);
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
    expect(new Container().compose(probe, blobs).needsProbe).toBe(true);
    expect(seen.sort()).toEqual(
      [...BASE_KEYS, 'overduePosts', 'postReferences', 'postTimelines', 'posts'].sort(),
    );
  });

  it('refuses a part whose builder does not return exactly its keys', () => {
    const liar = part({
      name: 'liar',
      keys: ['promised'],
      build: () => ({ promised: 1, extra: 2 }) as { promised: number },
    });
    expect(() => new Container().compose(liar).promised).toThrow(
      /liar built \[promised,extra\], not its keys \[promised\]/,
    );
  });

  it('lets an override reach every view of the field in its container, and restores it', () => {
    const container = new Container();
    const deps = container.compose(posts);
    const handlers = compose(posts);
    const real = deps.clock;
    const fixed = { now: () => new Date('2030-01-01T00:00:00Z') };
    const restore = container.override({ clock: fixed });
    expect(deps.clock).toBe(fixed);
    expect(container.compose().clock).toBe(fixed);
    expect(container.run(() => handlers.clock)).toBe(fixed);
    // Nowhere else: not in another container, not in the process's.
    expect(new Container().compose().clock).not.toBe(fixed);
    expect(handlers.clock).not.toBe(fixed);
    restore();
    expect(deps.clock).toBe(real);
    expect(() => container.override({ noSuchField: 1 })).toThrow(/No part provides noSuchField/);
  });

  it('leaves nothing process-wide to patch: a test reaches parts through its own container', async () => {
    const exported = (module: object) => Object.keys(module).sort();
    expect(exported(await import('../../functions/runtime/compose.ts'))).toEqual(
      ['Container', 'base', 'compose', 'part'].sort(),
    );
    expect(exported(await import('../../functions/runtime/container.ts'))).toEqual(['createContainer']);
  });

  it('lets no container see the parts, overrides or environment of another, even interleaved', async () => {
    const made: string[] = [];
    const probe = part({
      name: 'environment-probe',
      keys: ['builtFor', 'lazyFor'],
      build: (_deps, { lazy }): { builtFor: string; lazyFor: () => string } => {
        made.push(env.tableName);
        return { builtFor: env.tableName, lazyFor: lazy(() => env.tableName) };
      },
    });
    const a = new Container({ environment: { [ENV.tableName]: 'table-a' } });
    const b = new Container({ environment: { [ENV.tableName]: 'table-b' } });
    const clockA = { now: () => new Date('2031-01-01T00:00:00Z') };
    a.override({ clock: clockA });
    // The same module-scope view, as two runtimes' invocations of one handler module read it.
    const handler = compose(probe);
    const invoke = (container: Container, ticks: number) =>
      container.run(async () => {
        for (let i = 0; i < ticks; i++) await new Promise<void>((resolve) => setImmediate(resolve));
        return {
          table: handler.table.tableName,
          env: env.tableName,
          builtFor: handler.builtFor,
          lazyFor: handler.lazyFor(),
          clock: handler.clock,
        };
      });
    const [fromA, fromB] = await Promise.all([invoke(a, 3), invoke(b, 1)]);
    expect(fromA).toEqual({
      table: 'table-a',
      env: 'table-a',
      builtFor: 'table-a',
      lazyFor: 'table-a',
      clock: clockA,
    });
    expect(fromB).toMatchObject({
      table: 'table-b',
      env: 'table-b',
      builtFor: 'table-b',
      lazyFor: 'table-b',
    });
    expect(fromB.clock).not.toBe(clockA);
    // A lazy value is built in its own container's environment whoever first asks for it.
    const c = new Container({ environment: { [ENV.tableName]: 'table-c' } });
    const lazyC = c.compose(probe).lazyFor;
    expect(a.run(() => lazyC())).toBe('table-c');
    expect(made.sort()).toEqual(['table-a', 'table-b', 'table-c']);
  });
});
