import { listTargets } from '../../core/channels/grant-completion.ts';
import type { Composed } from '../../runtime/compose.ts';
import { connectStates } from '../../runtime/parts/connect-states.ts';
import { type HttpRequest, httpHandler } from '../pipeline.ts';

/** What the route composes; the dashboard's route (http/account/) composes the same. */
export const listTargetsUses = [connectStates] as const;

/** GET /v1/channels/connect/{state}/targets: the pages, boards or channels the account may post to. */
export const listTargetsRoute = async ({
  deps,
  auth,
  params,
}: HttpRequest<undefined, Composed<typeof listTargetsUses>>) => ({
  status: 200,
  body: await listTargets(deps, auth, params.state as string),
});

export const handler = httpHandler({ uses: listTargetsUses }, listTargetsRoute);
