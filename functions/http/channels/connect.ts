import { startConnect } from '../../core/channels/connect.ts';
import { connectChannelBody } from '../../core/channels/schema.ts';
import { accounts } from '../../runtime/parts/accounts.ts';
import { channels } from '../../runtime/parts/channels.ts';
import { connectStates } from '../../runtime/parts/connect-states.ts';
import { networkAuth } from '../../runtime/parts/network-auth.ts';
import { httpHandler } from '../pipeline.ts';
import { callbackUri } from './callback-uri.ts';

/** POST /v1/channels/connect: the network's consent screen URL and a single-use state (10 minutes). */
export const handler = httpHandler(
  { keys: 'live', body: connectChannelBody, uses: [accounts, channels, networkAuth, connectStates] },
  async ({ deps, auth, body, event }) => ({
    status: 201,
    body: await startConnect(deps, auth, body, callbackUri(event)),
  }),
);
