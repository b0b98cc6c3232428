import { listTargets } from '../../core/channels/connect.ts';
import { cipher } from '../../runtime/parts/cipher.ts';
import { networkAuth } from '../../runtime/parts/network-auth.ts';
import { webhooks } from '../../runtime/parts/webhooks.ts';
import { httpHandler } from '../../shared/http.ts';

/** GET /v1/channels/connect/{state}/targets: the pages, boards or channels the account may post to. */
export const handler = httpHandler(
  { uses: [networkAuth, cipher, webhooks] },
  async ({ deps, auth, params }) => ({
    status: 200,
    body: await listTargets(deps, auth, params.state as string),
  }),
);
