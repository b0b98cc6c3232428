import { chooseTargets } from '../../core/channels/grant-completion.ts';
import { type ChooseTargetsBody, chooseTargetsBody } from '../../core/channels/schema.ts';
import type { Composed } from '../../runtime/compose.ts';
import { accounts } from '../../runtime/parts/accounts.ts';
import { channels } from '../../runtime/parts/channels.ts';
import { cipher } from '../../runtime/parts/cipher.ts';
import { connectStates } from '../../runtime/parts/connect-states.ts';
import { networkAuth } from '../../runtime/parts/network-auth.ts';
import { type HttpRequest, httpHandler } from '../pipeline.ts';

/** What the route composes; the dashboard's route (http/account/) composes the same. */
export const chooseTargetsUses = [accounts, channels, networkAuth, connectStates, cipher] as const;

/** POST /v1/channels/connect/{state}/targets: the chosen targets become channels. */
export const chooseTargetsRoute = async ({
  deps,
  auth,
  params,
  body,
}: HttpRequest<ChooseTargetsBody, Composed<typeof chooseTargetsUses>>) => ({
  status: 201,
  body: await chooseTargets(deps, auth, params.state as string, body),
});

export const handler = httpHandler(
  { keys: 'live', body: chooseTargetsBody, uses: chooseTargetsUses },
  chooseTargetsRoute,
);
