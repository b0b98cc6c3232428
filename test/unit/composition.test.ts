/**
 * Composition per capability (functions/runtime/compose.ts): a function sees the base and the
 * parts it composed, nothing else; and its bundle carries an AWS SDK client only when its grants
 * let it call that service, so a read route ships no S3, KMS, SQS, Scheduler or network client.
 */
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { fallbackEntry, healthRoute, routes } from '../../functions/http/routes.ts';
import { compose, override, part, reset } from '../../functions/runtime/compose.ts';
import { blobs } from '../../functions/runtime/parts/blobs.ts';
import { posts } from '../../functions/runtime/parts/posts.ts';
import type { Grant } from '../../functions/shared/grants.ts';
import { workers } from '../../functions/workers/manifest.ts';

const ROOT = resolve(import.meta.dirname, '../..');
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

/** Each SDK client package, and the grants of which one at least lets a function call that service. */
const CLIENT_GRANTS: Record<string, Grant[]> = {
  '@aws-sdk/client-s3': ['bucket:read', 'bucket:write', 'bucket:list'],
  '@aws-sdk/client-kms': ['tokenKey:decrypt', 'tokenKey:encrypt', 'webhookSecret:decrypt'],
  '@aws-sdk/client-sqs': ['publishQueue:send', 'eventQueue:send', 'deliveryQueue:send', 'metricsQueue:send'],
  '@aws-sdk/client-scheduler': ['scheduler:manage'],
  '@aws-sdk/client-secrets-manager': ['appSecrets:read'],
};

const functions = [
  ...routes.map((r) => ({ name: `${r.method} ${r.path}`, entry: r.entry, grants: r.grants })),
  { name: 'fallback', entry: fallbackEntry, grants: ['table:read', 'table:write'] as Grant[] },
  { name: 'health', entry: healthRoute.entry, grants: healthRoute.grants },
  ...workers.map((w) => ({ name: w.entry, entry: w.entry, grants: w.grants })),
];

/** The inputs of each function's bundle (bundled as the stack does), by entry. */
const bundledInputs = async (entries: string[]): Promise<Map<string, string[]>> => {
  const result = await build({
    entryPoints: [...new Set(entries)].map((entry) => resolve(ROOT, entry)),
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    mainFields: ['module', 'main'],
    write: false,
    metafile: true,
    logLevel: 'silent',
    outbase: ROOT,
    outdir: 'out',
  });
  const byEntry = new Map<string, string[]>();
  for (const output of Object.values(result.metafile.outputs)) {
    if (output.entryPoint) byEntry.set(output.entryPoint, Object.keys(output.inputs));
  }
  return byEntry;
};

describe('function bundles', () => {
  it('carry an AWS SDK client only where the grants allow calling its service', async () => {
    const inputs = await bundledInputs(functions.map((fn) => fn.entry));
    const found = functions.map((fn) => ({ fn, inputs: inputs.get(fn.entry) ?? [] }));
    expect(found.every((f) => f.inputs.length > 0)).toBe(true);
    const unjustified: string[] = [];
    for (const { fn, inputs } of found) {
      for (const [pkg, grants] of Object.entries(CLIENT_GRANTS)) {
        const bundled = inputs.some((input) => input.includes(`node_modules/${pkg}/`));
        if (bundled && !grants.some((g) => fn.grants.includes(g))) unjustified.push(`${fn.name}: ${pkg}`);
      }
    }
    expect(unjustified).toEqual([]);

    // The read routes carry no network client and no SDK client besides DynamoDB's.
    const reads = found.filter(({ fn }) =>
      ['GET /v1/platforms', 'GET /v1/channels', 'GET /v1/tags', 'GET /v1/usage', 'GET /v1/posts'].includes(
        fn.name,
      ),
    );
    expect(reads).toHaveLength(5);
    for (const { fn, inputs } of reads) {
      const heavy = inputs.filter(
        (input) =>
          /node_modules\/@aws-sdk\/client-(?!dynamodb)/.test(input) ||
          /functions\/platforms\/[^/]+\/client\.ts$/.test(input),
      );
      expect({ fn: fn.name, heavy }).toEqual({ fn: fn.name, heavy: [] });
    }
  }, 120_000);
});
