/**
 * Checks each request a simulator serves against the network's own machine-readable description of
 * its API, vendored under `vendor/specs/<network>/` (SOURCE.md there names the repository, commit
 * and date): OpenAPI for Pinterest, X and Vimeo, Google's discovery document for YouTube, the AT
 * Protocol's Lexicons for Bluesky. Path and query parameter names, required parameters and fields,
 * types, enums, formats and the JSON body's schema are checked; the first problem found is handed
 * to the network's own validation-error body (`SimErrorBodies.invalidRequest`).
 *
 * Each document is read and each operation compiled once per process, when a simulator starts (see
 * `RequestSpec.prepare`): simulators run
 * only in the local runtime and in tests, never in Lambda (nothing bundled imports this module).
 */

import type { RequestSpec } from './spec-common.ts';
import { discoverySpec } from './spec-discovery.ts';
import { lexiconSpec } from './spec-lexicon.ts';
import { openApiSpec } from './spec-openapi.ts';

export type { RequestSpec, SpecIssue, SpecRequest } from './spec-common.ts';
export { discoverySpec, lexiconSpec, openApiSpec };

const specs = new Map<string, RequestSpec>();
const once = (key: string, make: () => RequestSpec) => {
  let spec = specs.get(key);
  if (!spec) {
    spec = make();
    specs.set(key, spec);
  }
  return spec;
};

/** The networks that publish a machine-readable description of their API, and where ours is. */
export const NETWORK_SPECS = {
  pinterest: () => once('pinterest', () => openApiSpec('pinterest/openapi.json', { prefix: '/v5' })),
  x: () => once('x', () => openApiSpec('x/openapi.json')),
  // Vimeo takes its JSON filter (`fields`) on every request
  // (https://developer.vimeo.com/api/common-formats#json-filter), and its API reads numbers and
  // numeric strings alike (the 2019 description types `upload.size` as a string; Vimeo's own
  // vimeo.js sends the file size as a number).
  vimeo: () =>
    once('vimeo', () =>
      openApiSpec('vimeo/openapi-extract.json', { everywhere: ['fields'], lenientTypes: true }),
    ),
  youtube: () => once('youtube', () => discoverySpec('youtube/discovery-extract.json')),
  bluesky: () => once('bluesky', () => lexiconSpec('bluesky/lexicons')),
} as const;

/** The spec of a network (one instance per process, so each operation compiles once). */
export const requestSpecFor = (network: keyof typeof NETWORK_SPECS): RequestSpec => NETWORK_SPECS[network]();
