import { listTargets } from '../../core/channels/grant-completion.ts';
import { connectStates } from '../../runtime/parts/connect-states.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/channels/connect/{state}/targets: the pages, boards or channels the account may post to. */
export const handler = httpHandler({ uses: [connectStates] }, async ({ deps, auth, params }) => ({
  status: 200,
  body: await listTargets(deps, auth, params.state as string),
}));
