// Writes openapi-extract.json beside this file: the operations of Vimeo's OpenAPI description
// (API 3.4) that the simulator serves, with every component they refer to. Descriptions and
// examples are dropped: the extract keeps the interface (names, types, enums, required-ness), not
// Vimeo's prose (the source repository carries no licence file).
//
//   node vendor/specs/vimeo/extract.mjs <vimeo/openapi api.yaml>
//
// SOURCE.md beside this file names the repository, commit and the original's sha256.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';

/** [path, method] pairs the simulator serves. */
export const OPERATIONS = [
  ['/me/videos', 'get'],
  ['/me/videos', 'post'],
  ['/videos/{video_id}', 'get'],
  ['/videos/{video_id}', 'patch'],
  ['/videos/{video_id}', 'delete'],
  ['/videos/{video_id}/texttracks', 'get'],
  ['/videos/{video_id}/texttracks', 'post'],
  ['/videos/{video_id}/texttracks/{texttrack_id}', 'patch'],
];

const input = process.argv[2];
if (!input) {
  console.error('usage: node vendor/specs/vimeo/extract.mjs <api.yaml>');
  process.exit(2);
}
const text = readFileSync(input, 'utf8');
const doc = load(text);
const PROSE = new Set(['description', 'example', 'examples', 'summary', 'x-vimeo', 'externalDocs']);

/** Maps whose keys are names (of properties, parameters, schemas), never prose: kept whole. */
const NAMED = new Set(['properties', 'parameters', 'schemas', 'paths', 'resources', 'methods', 'content']);

/** A deep copy without the prose keys. */
const strip = (node, named = false) => {
  if (Array.isArray(node)) return node.map((item) => strip(item));
  if (node && typeof node === 'object') {
    if (named) return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, strip(value)]));
    return Object.fromEntries(
      Object.entries(node)
        .filter(([key]) => !PROSE.has(key) && !key.startsWith('x-'))
        .map(([key, value]) => [key, strip(value, NAMED.has(key))]),
    );
  }
  return node;
};

const refsIn = (node, found) => {
  if (Array.isArray(node)) for (const item of node) refsIn(item, found);
  else if (node && typeof node === 'object') {
    if (typeof node.$ref === 'string') found.add(node.$ref);
    for (const value of Object.values(node)) refsIn(value, found);
  }
  return found;
};

const paths = {};
for (const [path, method] of OPERATIONS) {
  const {
    responses: _responses,
    security: _security,
    callbacks: _callbacks,
    ...request
  } = doc.paths[path][method];
  paths[path] ??= {};
  if (doc.paths[path].parameters) paths[path].parameters = strip(doc.paths[path].parameters);
  paths[path][method] = strip(request);
}
const components = {};
const queue = [...refsIn(paths, new Set())];
const done = new Set();
while (queue.length > 0) {
  const ref = queue.shift();
  if (done.has(ref)) continue;
  done.add(ref);
  const [, , kind, name] = ref.split('/');
  const value = doc.components[kind][name];
  components[kind] ??= {};
  components[kind][name] = strip(value);
  for (const next of refsIn(value, new Set())) if (!done.has(next)) queue.push(next);
}

const extract = {
  openapi: doc.openapi,
  info: { title: doc.info.title, version: doc.info.version },
  'x-source-sha256': createHash('sha256').update(text).digest('hex'),
  paths,
  components,
};
const out = join(dirname(fileURLToPath(import.meta.url)), 'openapi-extract.json');
writeFileSync(out, `${JSON.stringify(extract, null, 2)}\n`);
console.log(`${OPERATIONS.length} operations, ${done.size} components written to ${out}`);
