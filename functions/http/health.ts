import { httpHandler } from './pipeline.ts';

/** GET /health (outside /v1, no key): answers once the function can run. */
export const handler = httpHandler({ auth: 'none' }, async () => ({ status: 200, body: { status: 'ok' } }));
