import { chooseTargets } from '../../core/channels/grant-completion.ts';
import { chooseTargetsBody } from '../../core/channels/schema.ts';
import { accounts } from '../../runtime/parts/accounts.ts';
import { channels } from '../../runtime/parts/channels.ts';
import { cipher } from '../../runtime/parts/cipher.ts';
import { connectStates } from '../../runtime/parts/connect-states.ts';
import { networkAuth } from '../../runtime/parts/network-auth.ts';
import { httpHandler } from '../pipeline.ts';

/** POST /v1/channels/connect/{state}/targets: the chosen targets become channels. */
export const handler = httpHandler(
  { keys: 'live', body: chooseTargetsBody, uses: [accounts, channels, networkAuth, connectStates, cipher] },
  async ({ deps, auth, params, body }) => ({
    status: 201,
    body: await chooseTargets(deps, auth, params.state as string, body),
  }),
);
