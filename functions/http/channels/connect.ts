import { startConnect } from '../../core/channels/connect.ts';
import { type ConnectChannelBody, connectChannelBody } from '../../core/channels/schema.ts';
import type { Composed } from '../../runtime/compose.ts';
import { accounts } from '../../runtime/parts/accounts.ts';
import { channels } from '../../runtime/parts/channels.ts';
import { connectStates } from '../../runtime/parts/connect-states.ts';
import { networkAuth } from '../../runtime/parts/network-auth.ts';
import { type HttpRequest, httpHandler } from '../pipeline.ts';
import { callbackUri } from './callback-uri.ts';

/** What the route composes; the dashboard's route (http/account/) composes the same. */
export const connectUses = [accounts, channels, networkAuth, connectStates] as const;

/** POST /v1/channels/connect: the network's consent screen URL and a single-use state (10 minutes). */
export const connectRoute = async ({
  deps,
  auth,
  body,
  event,
}: HttpRequest<ConnectChannelBody, Composed<typeof connectUses>>) => ({
  status: 201,
  body: await startConnect(deps, auth, body, callbackUri(event)),
});

export const handler = httpHandler(
  { keys: 'live', body: connectChannelBody, uses: connectUses },
  connectRoute,
);
