/**
 * Each function's bundle, built with the stack's options (lib/bundling/options.ts), carries an AWS
 * SDK client only when its grants let it call that service, so a read route ships no S3, KMS, SQS,
 * Scheduler or network client; network clients are never in a function's entry, only in chunks
 * loaded on first use; and the deployed functions take their credentials from the environment,
 * which a bundle built that way does against DynamoDB Local. (The composition itself:
 * test/unit/composition.test.ts.)
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
