/**
 * How every function is bundled: the one definition the CDK stack (lib/constructs/handler-function.ts),
 * the bundle test (test/infra/function-bundles.test.ts) and the spine bench (bench/spine.ts) all use.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, buildSync, type Metafile } from 'esbuild';

/** Lets CommonJS dependencies call `require` inside the ESM bundle (and in each of its chunks). */
export const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** The environment-only credential provider the deployed functions get (see lambda-credentials.ts). */
export const LAMBDA_CREDENTIALS = fileURLToPath(new URL('./lambda-credentials.ts', import.meta.url));

/** The file Lambda loads: `index.mjs`, so the handler is `index.handler`. */
export const ENTRY_FILE = 'index.mjs';

/**
 * Import paths bundled from npm instead of left to Node's built-in module of the same name.
 * `twitter-text` (X's weighted length) calls `require('punycode')`, Node's deprecated built-in
 * (DEP0040: a warning on every cold start under Node 22); it depends on the userland `punycode`
 * package, the same code, which the trailing slash names (its README's advice).
 */
export const BUILTIN_REPLACEMENTS: Readonly<Record<string, string>> = { punycode: 'punycode/' };

/**
 * esbuild options for one function: ESM for node22, minified, with the pinned AWS SDK v3 bundled
 * (tree-shaken, the version we test with, not the runtime's), a source map without sources, and
 * code splitting: what a function loads with `import()` (one network's client) lands in its own
 * chunk under `chunks/`, fetched from the asset the first time it is needed.
 */
export const lambdaBuildOptions = (entry: string, outdir: string): BuildOptions & { metafile: true } => ({
  entryPoints: { index: entry },
  outdir,
  bundle: true,
  minify: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  mainFields: ['module', 'main'],
  splitting: true,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  banner: { js: ESM_REQUIRE_BANNER },
  sourcemap: true,
  sourcesContent: false,
  alias: { '@aws-sdk/credential-provider-node': LAMBDA_CREDENTIALS, ...BUILTIN_REPLACEMENTS },
  metafile: true,
  logLevel: 'warning',
});

/**
 * Bundles one function into `outputDir` so that the bytes depend on the sources only, never on
 * where the output goes: esbuild writes source map paths (and so the chunk names, whose hashes
 * cover the maps) relative to its output folder, so the build is laid out as if the bundle sat at
 * `sourceRoot` (paths read `functions/...`, `node_modules/...`, which Lambda's `--enable-source-maps`
 * resolves under the function's own folder) and only then written to `outputDir`. The same commit
 * gives the same asset hashes from any checkout and any `cdk.out`.
 */
export const bundleFunction = (entry: string, sourceRoot: string, outputDir: string): Metafile => {
  const built = buildSync({
    ...lambdaBuildOptions(path.resolve(sourceRoot, entry), sourceRoot),
    // esbuild resolves aliases from its working directory: the source root's node_modules.
    absWorkingDir: sourceRoot,
    // Paths through a symlinked node_modules (a worktree's) stay under the source root, not the
    // link's target. npm's tree holds no other link, so no package can be bundled twice.
    preserveSymlinks: true,
    write: false,
  });
  for (const file of built.outputFiles) {
    const target = path.join(outputDir, path.relative(sourceRoot, file.path));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, file.contents);
  }
  return built.metafile;
};

/** One output file of a bundle: its minified bytes and the source files in it, with their bytes. */
export interface BundleFile {
  readonly file: string;
  readonly bytes: number;
  readonly inputs: Readonly<Record<string, number>>;
}

/** What a function's asset holds, read from esbuild's metafile. */
export interface BundleShape {
  /** `index.mjs` and the chunks it imports statically: what every cold start loads. */
  readonly entry: readonly BundleFile[];
  /**
   * Per file loaded with `import()` from the entry: that file and the chunks it imports statically
   * that the entry does not already load (what the first use of one lazy module adds).
   */
  readonly lazy: ReadonlyMap<string, readonly BundleFile[]>;
  /** Every JavaScript file of the asset. */
  readonly all: readonly BundleFile[];
}

const sum = (files: readonly BundleFile[]): number => files.reduce((total, f) => total + f.bytes, 0);
export const bytesOf = sum;

/** Reads a function bundle's entry, its lazily imported parts and its whole asset from esbuild's metafile. */
export const bundleShape = (metafile: Metafile, outdir: string): BundleShape => {
  const files = new Map<string, BundleFile>();
  const outputs = Object.entries(metafile.outputs).filter(([file]) => file.endsWith('.mjs'));
  for (const [file, output] of outputs) {
    files.set(file, {
      file: path.relative(outdir, path.resolve(file)),
      bytes: output.bytes,
      inputs: Object.fromEntries(
        Object.entries(output.inputs).map(([input, { bytesInOutput }]) => [input, bytesInOutput]),
      ),
    });
  }
  /** A file and everything it imports statically, minus `known`. */
  const staticClosure = (start: string, known: ReadonlySet<string>): string[] => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file) || known.has(file)) return;
      seen.add(file);
      for (const imported of metafile.outputs[file]?.imports ?? []) {
        if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
      }
    };
    visit(start);
    return [...seen];
  };
  // Not the first output with an entryPoint: esbuild gives each `import()` target one too.
  const entryFile = outputs.find(([file]) => path.resolve(file) === path.resolve(outdir, ENTRY_FILE))?.[0];
  if (!entryFile) throw new Error('The bundle has no entry point');
  const entry = staticClosure(entryFile, new Set());
  const loaded = new Set(entry);
  const lazy = new Map<string, BundleFile[]>();
  const dynamicFrom = (file: string) =>
    (metafile.outputs[file]?.imports ?? [])
      .filter((i) => i.kind === 'dynamic-import' && !i.external)
      .map((i) => i.path);
  const pending = entry.flatMap(dynamicFrom);
  while (pending.length > 0) {
    const target = pending.shift() as string;
    if (lazy.has(target) || loaded.has(target)) continue;
    const closure = staticClosure(target, loaded);
    lazy.set(
      target,
      closure.map((file) => files.get(file) as BundleFile),
    );
    pending.push(...closure.flatMap(dynamicFrom));
  }
  return {
    entry: entry.map((file) => files.get(file) as BundleFile),
    lazy: new Map([...lazy].map(([file, parts]) => [(files.get(file) as BundleFile).file, parts])),
    all: [...files.values()],
  };
};
