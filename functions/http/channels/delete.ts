import { disconnectChannel } from '../../core/channels/connect.ts';
import type { Composed } from '../../runtime/compose.ts';
import { channels } from '../../runtime/parts/channels.ts';
import { cipher } from '../../runtime/parts/cipher.ts';
import { networkAuth } from '../../runtime/parts/network-auth.ts';
import { type HttpRequest, httpHandler } from '../pipeline.ts';

/** What the route composes; the dashboard's route (http/account/) composes the same. */
export const disconnectUses = [channels, networkAuth, cipher] as const;

/** DELETE /v1/channels/{id}: revokes at the network where possible and removes the channel; posts keep their history. */
export const disconnectRoute = async ({
  deps,
  auth,
  params,
}: HttpRequest<undefined, Composed<typeof disconnectUses>>) => ({
  status: 200,
  body: await disconnectChannel(deps, auth, params.id as string),
});

export const handler = httpHandler({ keys: 'live', uses: disconnectUses }, disconnectRoute);
