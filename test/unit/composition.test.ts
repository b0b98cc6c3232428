/**
 * Composition per capability (functions/runtime/compose.ts): a function sees the base and the
 * parts it composed, nothing else; and its bundle (built with the stack's options,
 * lib/bundling/options.ts) carries an AWS SDK client only when its grants let it call that service,
 * so a read route ships no S3, KMS, SQS, Scheduler or network client; network clients are never
 * in a function's entry, only in chunks loaded on first use; and the deployed functions take their
 * credentials from the environment, which a bundle built that way does against DynamoDB Local.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { build } from 'esbuild';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { fallbackEntry, fallbackGrants, healthRoute, routes } from '../../functions/http/routes.ts';
import { Container, compose, part } from '../../functions/runtime/compose.ts';
import { blobs } from '../../functions/runtime/parts/blobs.ts';
import { posts } from '../../functions/runtime/parts/posts.ts';
import { ENV, env } from '../../functions/shared/env.ts';
import type { Grant } from '../../functions/shared/grants.ts';
import { workers } from '../../functions/workers/manifest.ts';
import {
  bundleShape,
  ENTRY_FILE,
  LAMBDA_CREDENTIALS,
  lambdaBuildOptions,
} from '../../lib/bundling/options.ts';
import { freshTable } from '../support/table.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BASE_KEYS = ['clock', 'table', 'dynamo', 'accounts', 'rateLimiter', 'settings'];

describe('compose', () => {
  it('gives a function the base and its parts, and nothing it did not compose', () => {
    const deps = compose(posts) as unknown as Record<string, unknown>;
    expect(Object.keys(deps).sort()).toEqual([...BASE_KEYS, 'overduePosts', 'posts'].sort());
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
    expect(seen.sort()).toEqual([...BASE_KEYS, 'overduePosts', 'posts'].sort());
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

/** Each SDK client package, and the grants of which one at least lets a function call that service. */
const CLIENT_GRANTS: Record<string, Grant[]> = {
  '@aws-sdk/client-s3': ['bucket:read', 'bucket:write', 'bucket:list'],
  '@aws-sdk/client-kms': [
    'channelToken:decrypt',
    'channelToken:encrypt',
    'connectGrant:decrypt',
    'connectGrant:encrypt',
    'webhookSecret:decrypt',
    'webhookSecret:encrypt',
  ],
  '@aws-sdk/client-sqs': ['publishQueue:send', 'eventQueue:send', 'deliveryQueue:send', 'metricsQueue:send'],
  '@aws-sdk/client-scheduler': ['scheduler:manage'],
  '@aws-sdk/client-secrets-manager': ['appSecrets:read'],
};

const functions = [
  ...routes.map((r) => ({ name: `${r.method} ${r.path}`, entry: r.entry, grants: r.grants })),
  { name: 'fallback', entry: fallbackEntry, grants: fallbackGrants },
  { name: 'health', entry: healthRoute.entry, grants: healthRoute.grants },
  ...workers.map((w) => ({ name: w.entry, entry: w.entry, grants: w.grants })),
];

const scratch = mkdtempSync(join(tmpdir(), 'herald-composition-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Bundles an entry exactly as the stack does, into a folder of its own. */
const bundle = async (entry: string) => {
  const outdir = join(scratch, entry.replace(/[/.]/g, '_'));
  const built = await build({ ...lambdaBuildOptions(resolve(ROOT, entry), outdir), logLevel: 'silent' });
  return { outdir, shape: bundleShape(built.metafile, outdir) };
};

const inputsOf = (files: readonly { inputs: Readonly<Record<string, number>> }[]): string[] =>
  files.flatMap((file) => Object.keys(file.inputs));

/** Per entry: the inputs of its entry files (what a cold start loads) and of its whole asset. */
const bundledInputs = async (
  entries: string[],
): Promise<Map<string, { entry: string[]; asset: string[] }>> => {
  const byEntry = new Map<string, { entry: string[]; asset: string[] }>();
  for (const entry of new Set(entries)) {
    const { shape } = await bundle(entry);
    byEntry.set(entry, { entry: inputsOf(shape.entry), asset: inputsOf(shape.all) });
  }
  return byEntry;
};

const NETWORK_CLIENT = /functions\/platforms\/(?!sandbox\/)[^/]+\/client\.ts$/;

describe('function bundles', () => {
  it('carry an AWS SDK client only where the grants allow calling its service', async () => {
    const inputs = await bundledInputs(functions.map((fn) => fn.entry));
    const found = functions.map((fn) => ({ fn, ...(inputs.get(fn.entry) ?? { entry: [], asset: [] }) }));
    expect(found.every((f) => f.entry.length > 0)).toBe(true);
    const unjustified: string[] = [];
    for (const { fn, asset } of found) {
      for (const [pkg, grants] of Object.entries(CLIENT_GRANTS)) {
        const bundled = asset.some((input) => input.includes(`node_modules/${pkg}/`));
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
    for (const { fn, asset } of reads) {
      const heavy = asset.filter(
        (input) => /node_modules\/@aws-sdk\/client-(?!dynamodb)/.test(input) || NETWORK_CLIENT.test(input),
      );
      expect({ fn: fn.name, heavy }).toEqual({ fn: fn.name, heavy: [] });
    }

    // A network's client is loaded on first use, never with the entry; the functions that call
    // networks still carry all of them in their asset.
    const eager = found.flatMap(({ fn, entry }) =>
      entry
        .filter((i) => NETWORK_CLIENT.test(i) && !i.endsWith('platforms/linkedin/client.ts'))
        .map((i) => `${fn.name}: ${i}`),
    );
    expect(eager).toEqual([]);
    const publisher = found.find(({ fn }) => fn.entry === 'functions/workers/publish.ts');
    expect(new Set(publisher?.asset.filter((i) => NETWORK_CLIENT.test(i))).size).toBe(11);

    // Credentials: the environment's only, in every function (no SSO, INI, process, IMDS or STS).
    for (const { fn, asset } of found) {
      const chain = asset.filter((i) =>
        /node_modules\/@aws-sdk\/(credential-provider-(?!env\/)|nested-clients\/)|credential-provider-imds/.test(
          i,
        ),
      );
      expect({ fn: fn.name, chain }).toEqual({ fn: fn.name, chain: [] });
    }
  }, 300_000);

  it('sign with the environment credentials Lambda sets, and with nothing else', async () => {
    const { outdir, shape } = await bundle('bench/baseline-handler.ts');
    expect(inputsOf(shape.all).some((i) => resolve(ROOT, i) === LAMBDA_CREDENTIALS)).toBe(true);
    const table = await freshTable();
    try {
      await table.doc.send(
        new PutCommand({ TableName: table.tableName, Item: { PK: 'k', SK: 'k', note: 'stored' } }),
      );
      // A Lambda-like process: the handler module and the environment, no AWS profile or files.
      const run = (env: Record<string, string>) =>
        promisify(execFile)(
          process.execPath,
          [
            '--input-type=module',
            '-e',
            `const { handler } = await import(${JSON.stringify(join(outdir, ENTRY_FILE))}); const out = await handler({ key: 'k' }); process.stdout.write(JSON.stringify(out.Item));`,
          ],
          {
            env: {
              PATH: process.env.PATH ?? '',
              HOME: scratch,
              AWS_REGION: 'us-east-1',
              AWS_ENDPOINT_URL_DYNAMODB: inject('dynamoEndpoint'),
              TABLE_NAME: table.tableName,
              ...env,
            },
          },
        );
      const { stdout } = await run({
        AWS_ACCESS_KEY_ID: 'AKIDLAMBDA',
        AWS_SECRET_ACCESS_KEY: 'lambda-secret',
        AWS_SESSION_TOKEN: 'lambda-session',
      });
      expect(JSON.parse(stdout)).toEqual({ PK: 'k', SK: 'k', note: 'stored' });
      // Without them the function fails at once: there is no other link in the chain to fall back on.
      await expect(run({})).rejects.toThrow(/Unable to find environment variable credentials/);
    } finally {
      await table.drop();
    }
  }, 60_000);
});
