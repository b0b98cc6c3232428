import { disconnectChannel } from '../../core/channels/connect.ts';
import { channels } from '../../runtime/parts/channels.ts';
import { cipher } from '../../runtime/parts/cipher.ts';
import { networkAuth } from '../../runtime/parts/network-auth.ts';
import { httpHandler } from '../pipeline.ts';

/** DELETE /v1/channels/{id}: revokes at the network where possible and removes the channel; posts keep their history. */
export const handler = httpHandler(
  { keys: 'live', uses: [channels, networkAuth, cipher] },
  async ({ deps, auth, params }) => ({
    status: 200,
    body: await disconnectChannel(deps, auth, params.id as string),
  }),
);
