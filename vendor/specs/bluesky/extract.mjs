// Copies the Lexicon files the Bluesky simulator validates against, whole, from an atproto checkout:
// the methods it serves, the record types it stores, and every lexicon their parameters, inputs and
// records refer to (outputs are not followed: the simulator validates requests, not answers).
//
//   node vendor/specs/bluesky/extract.mjs <atproto checkout>
//
// SOURCE.md beside this file names the repository and commit the vendored files came from.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The XRPC methods the simulator serves and the record collections it validates. */
export const ROOTS = [
  'com.atproto.repo.createRecord',
  'com.atproto.repo.getRecord',
  'com.atproto.repo.deleteRecord',
  'com.atproto.repo.uploadBlob',
  'com.atproto.identity.resolveHandle',
  'com.atproto.server.createSession',
  'com.atproto.server.refreshSession',
  'com.atproto.server.deleteSession',
  'com.atproto.server.getSession',
  'com.atproto.server.getServiceAuth',
  'app.bsky.feed.getPosts',
  'app.bsky.feed.getPostThread',
  'app.bsky.video.uploadVideo',
  'app.bsky.video.getJobStatus',
  'app.bsky.feed.post',
];

const checkout = process.argv[2];
if (!checkout) {
  console.error('usage: node vendor/specs/bluesky/extract.mjs <atproto checkout>');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'lexicons');
const fileOf = (nsid) => `${nsid.split('.').join('/')}.json`;

/** Every `ref`/`refs` target under `node`, as an NSID (the part before `#`; a bare `#x` is local). */
const refsIn = (node, found = new Set()) => {
  if (Array.isArray(node)) for (const item of node) refsIn(item, found);
  else if (node && typeof node === 'object') {
    if (node.type === 'ref' && typeof node.ref === 'string') found.add(node.ref);
    if (node.type === 'union' && Array.isArray(node.refs)) for (const ref of node.refs) found.add(ref);
    for (const value of Object.values(node)) refsIn(value, found);
  }
  return found;
};

/** The parts of a lexicon a request is checked against: parameters, input, record; every def but outputs. */
const requestParts = (doc) =>
  Object.values(doc.defs).map((def) =>
    def.type === 'query' || def.type === 'procedure' || def.type === 'subscription'
      ? { parameters: def.parameters, input: def.input }
      : def,
  );

const seen = new Map();
const queue = [...ROOTS];
while (queue.length > 0) {
  const nsid = queue.shift();
  if (seen.has(nsid)) continue;
  const text = readFileSync(join(checkout, 'lexicons', fileOf(nsid)), 'utf8');
  const doc = JSON.parse(text);
  seen.set(nsid, text);
  for (const ref of refsIn(requestParts(doc))) {
    const target = ref.split('#')[0];
    if (target !== '' && !seen.has(target)) queue.push(target);
  }
}

rmSync(out, { recursive: true, force: true });
for (const [nsid, text] of [...seen].sort(([a], [b]) => a.localeCompare(b))) {
  const path = join(out, fileOf(nsid));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
console.log(`${seen.size} lexicons written to ${out}`);
