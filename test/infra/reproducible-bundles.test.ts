/**
 * What `cdk synth` bundles depends on the commit only: the same sources give the same asset hashes
 * from any checkout and into any `cdk.out` (so a CI runner in another folder redeploys nothing),
 * and no bundle loads a deprecated Node built-in (no warning in every cold start's logs).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { App, AssetStaging, Stack } from 'aws-cdk-lib';
import { buildSync } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/app.ts';
import { BUILTIN_REPLACEMENTS, ENTRY_FILE, lambdaBuildOptions } from '../../lib/bundling/options.ts';
import { HandlerFunction } from '../../lib/constructs/handler-function.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-reproducible-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

// X's weighted length (twitter-text, which requires `punycode`) and a chunk loaded on first use.
const SOURCES: Record<string, string> = {
  'fns/handler.ts': [
    "import parseTweet from 'twitter-text/dist/parseTweet.js';",
    'export const handler = async (text: string) =>',
    "  (await import('./lazy.ts')).describe(parseTweet(text).weightedLength);",
    '',
  ].join('\n'),
  'fns/lazy.ts': "export const describe = (n: number) => ['weighs', n].join(' ');\n",
};

/** A checkout of SOURCES at `dir`, with the repository's node_modules linked in. */
const checkout = (dir: string): string => {
  for (const [file, text] of Object.entries(SOURCES)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
};

/** Synthesizes one function from `sourceRoot` into `outdir`: its asset hash and staged folder. */
const synthesize = (sourceRoot: string, outdir: string) => {
  const app = new App({ outdir });
  const stack = new Stack(app, 'Reproducible');
  const fn = new HandlerFunction(stack, 'Fn', {
    sourceRoot,
    entry: 'fns/handler.ts',
    description: 'test',
    environment: {},
  });
  app.synth();
  const staging = fn.node.findAll().find((c): c is AssetStaging => c instanceof AssetStaging);
  if (!staging) throw new Error('no asset');
  return { hash: staging.assetHash, dir: staging.absoluteStagedPath };
};

/** Runs a bundle's handler in a fresh Node that reports even pending deprecations. */
const runBundle = async (dir: string) =>
  promisify(execFile)(
    process.execPath,
    [
      '--pending-deprecation',
      '--input-type=module',
      '-e',
      `const { handler } = await import(${JSON.stringify(path.join(dir, ENTRY_FILE))}); process.stdout.write(await handler('see https://bücher.de'));`,
    ],
    { env: { PATH: process.env.PATH ?? '' } },
  );

describe('function bundles', () => {
  it('have the same asset hash from two checkouts at different depths into two different cdk.out', async () => {
    const first = synthesize(checkout(path.join(scratch, 'one')), path.join(scratch, 'one', 'cdk.out'));
    const second = synthesize(
      checkout(path.join(scratch, 'elsewhere', 'deeper', 'two')),
      path.join(scratch, 'out-beside'),
    );
    expect(second.hash).toBe(first.hash);
    const filesOf = (dir: string) => (fs.readdirSync(dir, { recursive: true }) as string[]).sort();
    expect(filesOf(second.dir)).toEqual(filesOf(first.dir));
    expect(filesOf(first.dir).some((file) => file.startsWith(`chunks${path.sep}`))).toBe(true);
    // Source maps name sources from the checkout's root, which Lambda's folder mirrors.
    const map = JSON.parse(fs.readFileSync(path.join(first.dir, `${ENTRY_FILE}.map`), 'utf8')) as {
      sources: string[];
    };
    expect(map.sources).toContain('fns/handler.ts');
    expect(map.sources.filter((source) => !/^(fns|node_modules)\//.test(source))).toEqual([]);

    const { stdout, stderr } = await runBundle(first.dir);
    expect(stdout).toBe('weighs 27');
    expect(stderr).not.toMatch(/DEP0040|punycode/);
  }, 120_000);

  it('would warn about Node’s punycode on each cold start without the replacement (the check above can fail)', async () => {
    const root = checkout(path.join(scratch, 'control'));
    const outdir = path.join(root, 'out');
    const options = lambdaBuildOptions(path.join(root, 'fns/handler.ts'), outdir);
    const alias = Object.fromEntries(
      Object.entries(options.alias ?? {}).filter(([name]) => !(name in BUILTIN_REPLACEMENTS)),
    );
    buildSync({ ...options, alias, absWorkingDir: root });
    const { stdout, stderr } = await runBundle(outdir);
    expect(stdout).toBe('weighs 27');
    expect(stderr).toMatch(/DEP0040/);
  }, 60_000);
});
