/**
 * The typed client as another project uses it, and every TypeScript example of the docs run as a
 * reader would. `npm pack ./client` (its prepack builds client/dist with `npm run client:build`);
 * the tarball goes into a temporary project through npm, from the npm cache that `npm ci` filled
 * (a lockfile with the versions of this repository's own lockfile, `--prefer-offline`: no registry
 * request while the cache holds them); then plain Node runs an ESM program against a local
 * runtime, tsc checks TypeScript programs against the installed declarations (every
 * docs/examples file, and one wrong on purpose), and each docs/examples file runs as its comment
 * says (`node --import tsx`), its output checked.
 */
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshWorkspace } from '../support/accounts.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLES = join(ROOT, 'docs', 'examples');
const require = createRequire(import.meta.url);
const TSX = pathToFileURL(require.resolve('tsx')).href;
const TSC = require.resolve('typescript/bin/tsc');

interface Run {
  code: number;
  output: string;
}

/** Runs a program to its end; its exit code and stdout and stderr together. */
const run = (file: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) =>
  new Promise<Run>((done) => {
    execFile(
      file,
      args,
      { cwd: options.cwd, env: { ...process.env, ...options.env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, output: `${stdout}${stderr}` });
      },
    );
  });

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const rootPackage = readJson(join(ROOT, 'package.json'));
const clientPackage = readJson(join(ROOT, 'client', 'package.json'));

interface LockEntry {
  version: string;
  integrity?: string;
  license?: string;
  dependencies?: Record<string, string>;
}

/** The lockfile entries of `names` and everything they depend on, as this repository locked them. */
const lockedClosure = (names: string[]): Record<string, LockEntry> => {
  const packages = readJson(join(ROOT, 'package-lock.json')).packages as Record<string, LockEntry>;
  const closure: Record<string, LockEntry> = {};
  const visit = (name: string) => {
    const path = `node_modules/${name}`;
    if (closure[path]) return;
    const entry = packages[path];
    if (!entry) throw new Error(`${name} is not in package-lock.json`);
    closure[path] = {
      version: entry.version,
      ...(entry.integrity ? { integrity: entry.integrity } : {}),
      ...(entry.license ? { license: entry.license } : {}),
      ...(entry.dependencies ? { dependencies: entry.dependencies } : {}),
    };
    for (const dependency of Object.keys(entry.dependencies ?? {})) visit(dependency);
  };
  for (const name of names) visit(name);
  return closure;
};

/** A TypeScript program that must not compile: each line marked `// error` is one tsc refuses. */
const WRONG = `import { createHeraldClient, verifyWebhook } from '@herald/client';

const herald = createHeraldClient({ baseUrl: 'http://localhost:3000', apiKey: 'sk_test_x' });
await herald.GET('/v1/nope'); // error: no such path
await herald.POST('/v1/posts', { body: { intent: 'later', channels: [] } }); // error: no such intent
const { data } = await herald.GET('/v1/channels');
console.log(data?.data[0]?.colour); // error: channels have no colour
verifyWebhook('{}', 't=1,v1=00', 42); // error: a secret is a string
`;

/** A plain ESM program: no TypeScript, no loader. */
const SMOKE = `import { createHeraldClient, HeraldError, SIGNATURE_HEADER, signWebhook, verifyWebhook, waitForPost } from '@herald/client';

const herald = createHeraldClient({ baseUrl: process.env.HERALD_URL, apiKey: process.env.HERALD_API_KEY });
const { data, error, response } = await herald.GET('/v1/channels');
if (error) throw new HeraldError(response.status, error);
const body = JSON.stringify({ id: 'evt_1', type: 'post.published' });
const now = Math.floor(Date.now() / 1000);
console.log(JSON.stringify({
  status: response.status,
  platforms: data.data.map((channel) => channel.platform).sort(),
  header: SIGNATURE_HEADER,
  signed: verifyWebhook(body, signWebhook(body, 'whsec_a', now), 'whsec_a'),
  forged: verifyWebhook(body, signWebhook(body, 'whsec_b', now), 'whsec_a'),
  waitForPost: typeof waitForPost,
}));
`;

/** What each docs/examples file prints (and exits 0); every file there must be listed. */
const EXPECTED: Record<string, RegExp[]> = {
  'publish.ts': [
    /^created (post_\w+) \(publishing\) on x ws_\w+$/m,
    /^post_\w+ published: x published https:\/\/x\.com\/\S+\/status\/\d+$/m,
    /^retracted post_\w+ from x$/m,
  ],
  'webhooks.ts': [
    /^receiving on https:\/\/127\.0\.0\.1:\d+\/herald as wh_\w+$/m,
    /^verified post\.published evt_\w+ for (post_\w+) on x$/m,
    /^retracted post_\w+$/m,
    /^deleted wh_\w+$/m,
  ],
};

const work = mkdtempSync(join(tmpdir(), 'herald-client-package-'));
const project = join(work, 'project');
const examples = readdirSync(EXAMPLES).filter((file) => file.endsWith('.ts'));
let rt: TestRuntime;
let tarball = '';
let packed: Run;
let installed: Run;

beforeAll(async () => {
  // The runtime starts while the package is built, packed and installed.
  const runtime = sharedTestRuntime();
  packed = await run('npm', ['pack', './client', '--pack-destination', work, '--no-update-notifier'], {
    cwd: ROOT,
  });
  if (packed.code === 0) {
    tarball = readdirSync(work).find((file) => file.endsWith('.tgz')) as string;
    const dependencies = { '@herald/client': `file:../${tarball}` };
    const manifest = { name: 'consumer', version: '1.0.0', private: true, type: 'module', dependencies };
    const lock = {
      name: manifest.name,
      version: manifest.version,
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: manifest.name, version: manifest.version, dependencies },
        'node_modules/@herald/client': {
          version: clientPackage.version,
          resolved: `file:../${tarball}`,
          dependencies: clientPackage.dependencies,
        },
        ...lockedClosure(Object.keys(clientPackage.dependencies)),
      },
    };
    rmSync(project, { recursive: true, force: true });
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(join(project, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
    installed = await run(
      'npm',
      ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--no-update-notifier'],
      { cwd: project },
    );
  }
  rt = await runtime;
}, 180_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('the typed client as a package', () => {
  it('packs the built JavaScript, its declarations and the generated types, and installs from the npm cache', async () => {
    expect(packed.code, packed.output).toBe(0);
    expect(packed.output).toContain('Built client/dist: 5 files');
    const listed = await run('tar', ['-tzf', join(work, tarball)], { cwd: work });
    expect(listed.output.split('\n').filter(Boolean).sort()).toEqual([
      'package/dist/client/index.d.ts',
      'package/dist/client/index.js',
      'package/dist/client/schema.d.ts',
      'package/dist/functions/shared/verify-webhook.d.ts',
      'package/dist/functions/shared/verify-webhook.js',
      'package/package.json',
    ]);
    // The client's one runtime dependency, at the version this repository runs and tests.
    expect(clientPackage.dependencies).toEqual({
      'openapi-fetch': rootPackage.dependencies['openapi-fetch'],
    });
    expect(installed.code, installed.output).toBe(0);
    const ours = readJson(join(project, 'node_modules', '@herald', 'client', 'package.json'));
    expect(ours.name).toBe('@herald/client');
  });

  it('runs in plain Node as an ES module against a local runtime', async () => {
    const ws = await freshWorkspace(rt, ['x', 'bluesky']);
    writeFileSync(join(project, 'smoke.mjs'), SMOKE);
    const result = await run(process.execPath, ['smoke.mjs'], {
      cwd: project,
      env: { HERALD_URL: rt.url, HERALD_API_KEY: ws.key },
    });
    expect(result.code, result.output).toBe(0);
    expect(JSON.parse(result.output)).toEqual({
      status: 200,
      platforms: ['bluesky', 'x'],
      header: 'x-herald-signature',
      signed: true,
      forged: false,
      waitForPost: 'function',
    });
  });

  it('type-checks every docs example against the installed declarations, and refuses a wrong program', async () => {
    for (const file of examples) copyFileSync(join(EXAMPLES, file), join(project, file));
    writeFileSync(join(project, 'wrong.ts'), WRONG);
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022'],
        strict: true,
        noEmit: true,
        // The user's own @types/node (this repository's, here).
        typeRoots: [join(ROOT, 'node_modules', '@types')],
        types: ['node'],
        // As most projects do: checking @types/node's own declarations takes seconds. The wrong
        // program's errors show that the package's declarations resolve (else its types are any).
        skipLibCheck: true,
      },
      files: [...examples, 'wrong.ts'],
    };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    const result = await run(process.execPath, [TSC, '-p', '.', '--pretty', 'false'], { cwd: project });
    const errors = result.output.split('\n').filter((line) => /error TS\d+/.test(line));
    const lines = errors.map((line) => /^([\w.-]+)\((\d+),\d+\)/.exec(line)?.slice(1, 3).join(':'));
    const marked = WRONG.split('\n').flatMap((line, i) =>
      line.includes('// error') ? [`wrong.ts:${i + 1}`] : [],
    );
    expect(result.code).not.toBe(0);
    expect([...new Set(lines)], result.output).toEqual(marked);
  }, 120_000);
});

describe('docs/examples', () => {
  it('lists what every example prints', () => {
    expect(examples.length).toBeGreaterThan(0);
    expect(examples.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.keys(EXPECTED))(
    '%s runs against a local runtime, prints its steps and removes what it made',
    async (file) => {
      const ws = await freshWorkspace(rt, ['x']);
      copyFileSync(join(EXAMPLES, file), join(project, file));
      const result = await run(process.execPath, ['--import', TSX, file], {
        cwd: project,
        env: { HERALD_URL: rt.url, HERALD_API_KEY: ws.key, DATA_DIR: rt.dataDir },
      });
      expect(result.code, result.output).toBe(0);
      let postId: string | undefined;
      for (const pattern of EXPECTED[file] as RegExp[]) {
        const match = pattern.exec(result.output);
        expect(match, `${file} printed:\n${result.output}`).not.toBeNull();
        postId ??= match?.[1];
      }
      expect(postId).toMatch(/^post_/);
      // Retracted from every channel, the post is gone from Herald; no endpoint is left behind.
      expect((await rt.api(`/v1/posts/${postId}`, { key: ws.key })).status).toBe(404);
      expect((await rt.api('/v1/webhooks', { key: ws.key })).body.data).toEqual([]);
    },
    120_000,
  );
});
