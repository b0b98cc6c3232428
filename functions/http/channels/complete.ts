import { completeConnect } from '../../core/channels/grant-completion.ts';
import { type CompleteConnectBody, completeConnectBody } from '../../core/channels/schema.ts';
import type { Composed } from '../../runtime/compose.ts';
import { accounts } from '../../runtime/parts/accounts.ts';
import { cipher } from '../../runtime/parts/cipher.ts';
import { connectStates } from '../../runtime/parts/connect-states.ts';
import { idempotency } from '../../runtime/parts/idempotency.ts';
import { idempotent } from '../idempotency.ts';
import { type HttpRequest, httpHandler } from '../pipeline.ts';

/** What the route composes; the dashboard's route (http/account/) composes the same. */
export const completeUses = [accounts, connectStates, cipher, idempotency] as const;

/**
 * POST /v1/channels/connect/complete: the connect code from the redirect becomes the channel (201,
 * or 200 reconnected), or the targets to choose (200).
 */
export const completeRoute = async ({
  deps,
  auth,
  body,
}: HttpRequest<CompleteConnectBody, Composed<typeof completeUses>>) => completeConnect(deps, auth, body);

export const handler = httpHandler(
  { keys: 'live', body: completeConnectBody, uses: completeUses },
  idempotent('POST /v1/channels/connect/complete', completeRoute),
);
