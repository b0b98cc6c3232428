/**
 * `npm run openapi`: writes openapi.json (the document GET /v1/openapi.json serves) and the typed
 * client's types (client/schema.d.ts) from it. Both are committed; a test fails when they are stale.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderClientTypes, renderDocument } from '../functions/openapi/render.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
writeFileSync(join(root, 'openapi.json'), renderDocument());
writeFileSync(join(root, 'client', 'schema.d.ts'), await renderClientTypes());
console.log('Wrote openapi.json and client/schema.d.ts');
