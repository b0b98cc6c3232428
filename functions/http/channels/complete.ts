import { completeConnect } from '../../core/channels/grant-completion.ts';
import { completeConnectBody } from '../../core/channels/schema.ts';
import { accounts } from '../../runtime/parts/accounts.ts';
import { cipher } from '../../runtime/parts/cipher.ts';
import { connectStates } from '../../runtime/parts/connect-states.ts';
import { idempotency } from '../../runtime/parts/idempotency.ts';
import { idempotent } from '../idempotency.ts';
import { httpHandler } from '../pipeline.ts';

/**
 * POST /v1/channels/connect/complete: the connect code from the redirect becomes the channel (201,
 * or 200 reconnected), or the targets to choose (200).
 */
export const handler = httpHandler(
  { keys: 'live', body: completeConnectBody, uses: [accounts, connectStates, cipher, idempotency] },
  idempotent('POST /v1/channels/connect/complete', async ({ deps, auth, body }) =>
    completeConnect(deps, auth, body),
  ),
);
