import { getChannel } from '../../core/channels/connect.ts';
import { channels } from '../../runtime/parts/channels.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/channels/{id}: one connected account and its statuses. */
export const handler = httpHandler({ uses: [channels] }, async ({ deps, auth, params }) => ({
  status: 200,
  body: await getChannel(deps, auth, params.id as string),
}));
