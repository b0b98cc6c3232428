/**
 * The network simulators (simulators/) are test and local-runtime code: no deployed function may
 * carry one. Every function's entry (the route manifest, the fallback and health routes, the queue
 * workers) is bundled with the stack's own esbuild options (lib/bundling/options.ts) in one build,
 * nothing written; esbuild's metafile gives the import graph of what it bundled, and each entry's
 * reach in it must hold no file under simulators/.
 */
import { resolve } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { fallbackEntry, healthRoute, routes } from '../../functions/http/routes.ts';
import { workers } from '../../functions/workers/manifest.ts';
import { lambdaBuildOptions } from '../../lib/bundling/options.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SIMULATORS = /(^|\/)simulators\//;

/** Every bundled input an entry reaches, static or `import()`, read from the metafile's input graph. */
const reachOf = (metafile: Metafile, entry: string): string[] => {
  const seen = new Set<string>();
  const visit = (input: string) => {
    if (seen.has(input)) return;
    seen.add(input);
    for (const imported of metafile.inputs[input]?.imports ?? []) {
      if (!imported.external) visit(imported.path);
    }
  };
  visit(entry);
  return [...seen];
};

describe('function bundles', () => {
  it('carry no simulator: no function entry reaches a file under simulators/', async () => {
    const entries = [
      ...new Set([
        ...routes.map((r) => r.entry),
        fallbackEntry,
        healthRoute.entry,
        ...workers.map((w) => w.entry),
      ]),
    ];
    expect(entries.length).toBeGreaterThan(40);
    const options = lambdaBuildOptions(resolve(ROOT, entries[0] as string), resolve(ROOT, 'cdk.out/unused'));
    const built = await build({
      ...options,
      entryPoints: entries.map((entry) => resolve(ROOT, entry)),
      // The input graph is all this needs: no minifying, no source map, nothing on disk.
      minify: false,
      sourcemap: false,
      write: false,
      logLevel: 'silent',
    });
    // esbuild names inputs relative to the working directory; the entries are found by their tail.
    const inputs = Object.keys(built.metafile.inputs);
    const reached = entries.map((entry) => {
      const input = inputs.find((i) => i === entry || i.endsWith(`/${entry}`));
      return { entry, found: input !== undefined, reach: input ? reachOf(built.metafile, input) : [] };
    });
    expect(reached.filter((r) => !r.found).map((r) => r.entry)).toEqual([]);
    // Shipped code is reached through the graph (the publish worker reaches every network client).
    const publisher = reached.find((r) => r.entry === 'functions/workers/publish.ts');
    expect(publisher?.reach.some((i) => i.endsWith('functions/platforms/x/client.ts'))).toBe(true);
    const offending = reached.flatMap((r) =>
      r.reach.filter((i) => SIMULATORS.test(i)).map((i) => `${r.entry} -> ${i}`),
    );
    expect(offending).toEqual([]);
  }, 120_000);
});
