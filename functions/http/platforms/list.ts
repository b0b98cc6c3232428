import { platforms } from '../../domain/platforms/catalog.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/platforms: the per-network rules, the same data the post validator reads. */
export const handler = httpHandler({}, async () => ({ status: 200, body: { data: platforms } }));
