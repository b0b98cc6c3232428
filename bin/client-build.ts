/**
 * `npm run client:build`: builds the typed client as a package another project installs
 * (client/package.json, `@herald/client`): JavaScript and declarations from client/index.ts (and
 * the webhook verifier it re-exports) by plain tsc with client/tsconfig.build.json, into
 * client/dist, emptied first so that nothing stale is packed. tsc does not copy declaration
 * files, so the generated client/schema.d.ts is copied beside the index's declarations.
 * `npm pack ./client` runs this first (the package's prepack script).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const client = join(root, 'client');
const dist = join(client, 'dist');

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(client, 'tsconfig.build.json')], { stdio: 'inherit' });
copyFileSync(join(client, 'schema.d.ts'), join(dist, 'client', 'schema.d.ts'));

const files = readdirSync(dist, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
console.log(`Built ${relative(root, dist)}: ${files.length} files`);
