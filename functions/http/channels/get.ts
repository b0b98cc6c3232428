import { getChannel } from '../../core/channels/connect.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/channels/{id}: one connected account and its statuses. */
export const handler = httpHandler({}, async ({ deps, auth, params }) => ({
  status: 200,
  body: await getChannel(deps, auth, params.id as string),
}));
