// Writes discovery-extract.json beside this file: the part of YouTube's Data API v3 discovery
// document the simulator validates requests against (the methods it serves, the global parameters,
// and every schema their request bodies refer to). Descriptions are dropped: the extract keeps the
// interface (names, locations, types, formats, enums, required-ness), not Google's prose.
//
//   node vendor/specs/youtube/extract.mjs <youtube v3 discovery document (JSON)>
//
// SOURCE.md beside this file names the document's origin, revision and sha256.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `resource.method` pairs the simulator serves. */
export const METHODS = [
  'videos.insert',
  'videos.list',
  'videos.update',
  'videos.delete',
  'thumbnails.set',
  'captions.insert',
  'channels.list',
  'playlistItems.list',
  'commentThreads.list',
  'comments.list',
  'comments.insert',
  'comments.delete',
];

const input = process.argv[2];
if (!input) {
  console.error('usage: node vendor/specs/youtube/extract.mjs <youtube-v3.json>');
  process.exit(2);
}
const text = readFileSync(input, 'utf8');
const doc = JSON.parse(text);
const PROSE = new Set(['description', 'enumDescriptions', 'deprecated']);

/** Maps whose keys are names (of properties, parameters, schemas), never prose: kept whole. */
const NAMED = new Set(['properties', 'parameters', 'schemas', 'paths', 'resources', 'methods', 'content']);

/** A deep copy without the prose keys. */
const strip = (node, named = false) => {
  if (Array.isArray(node)) return node.map((item) => strip(item));
  if (node && typeof node === 'object') {
    if (named) return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, strip(value)]));
    return Object.fromEntries(
      Object.entries(node)
        .filter(([key]) => !PROSE.has(key))
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

const resources = {};
const wanted = new Set();
for (const name of METHODS) {
  const [resource, method] = name.split('.');
  const def = doc.resources[resource].methods[method];
  resources[resource] ??= { methods: {} };
  resources[resource].methods[method] = strip({ ...def, response: undefined, scopes: undefined });
  if (def.request?.$ref) wanted.add(def.request.$ref);
}
const schemas = {};
const queue = [...wanted];
while (queue.length > 0) {
  const name = queue.shift();
  if (schemas[name]) continue;
  schemas[name] = strip(doc.schemas[name]);
  for (const ref of refsIn(doc.schemas[name], new Set())) if (!schemas[ref]) queue.push(ref);
}

const extract = {
  source: {
    id: doc.id,
    revision: doc.revision,
    sha256: createHash('sha256').update(text).digest('hex'),
  },
  rootUrl: doc.rootUrl,
  servicePath: doc.servicePath,
  parameters: strip(doc.parameters, true),
  resources,
  schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
};
const out = join(dirname(fileURLToPath(import.meta.url)), 'discovery-extract.json');
writeFileSync(out, `${JSON.stringify(extract, null, 2)}\n`);
console.log(`${METHODS.length} methods, ${Object.keys(schemas).length} schemas written to ${out}`);
