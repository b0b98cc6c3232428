/**
 * The stack's bundling (lib/constructs/handler-function.ts with lib/bundling/options.ts): what a
 * function loads with `import()` is a chunk of its asset that Lambda's handler can load, and two
 * functions never share a staged asset (CDK caches assets by their bundling options, so the entry
 * must be part of them).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, AssetStaging, Stack } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/app.ts';
import { ENTRY_FILE } from '../../lib/bundling/options.ts';
import { HandlerFunction } from '../../lib/constructs/handler-function.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bundling-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(scratch, 'src', file)), { recursive: true });
  fs.writeFileSync(path.join(scratch, 'src', file), text);
};

describe('function assets', () => {
  it('hold the chunks a function imports lazily, and each function gets its own asset', async () => {
    write('fns/lazy.ts', "export const greeting = (name: string) => ['hello', name].join(' ');\n");
    write(
      'fns/split.ts',
      "export const handler = async () => (await import('./lazy.ts')).greeting('lambda');\n",
    );
    write('fns/plain.ts', "export const handler = async () => 'plain';\n");
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(scratch, 'src', 'node_modules'), 'dir');
    const app = new App({ outdir: path.join(scratch, 'out') });
    const stack = new Stack(app, 'Bundling');
    const common = { sourceRoot: path.join(scratch, 'src'), description: 'test', environment: {} };
    const split = new HandlerFunction(stack, 'Split', { ...common, entry: 'fns/split.ts' });
    const plain = new HandlerFunction(stack, 'Plain', { ...common, entry: 'fns/plain.ts' });
    app.synth();
    const dirOf = (fn: HandlerFunction) =>
      fn.node.findAll().find((c): c is AssetStaging => c instanceof AssetStaging)
        ?.absoluteStagedPath as string;

    expect(dirOf(split)).not.toBe(dirOf(plain));
    const chunks = fs.readdirSync(path.join(dirOf(split), 'chunks'));
    expect(chunks.filter((f) => f.endsWith('.mjs'))).toHaveLength(1);
    expect(fs.existsSync(path.join(dirOf(plain), 'chunks'))).toBe(false);

    const load = async (fn: HandlerFunction) =>
      (
        (await import(pathToFileURL(path.join(dirOf(fn), ENTRY_FILE)).href)) as {
          handler: () => Promise<string>;
        }
      ).handler;
    await expect((await load(split))()).resolves.toBe('hello lambda');
    await expect((await load(plain))()).resolves.toBe('plain');
  }, 60_000);
});
