import { completeCallback } from '../../core/channels/connect.ts';
import { cipher } from '../../runtime/parts/cipher.ts';
import { connectStates } from '../../runtime/parts/connect-states.ts';
import { networkAuth } from '../../runtime/parts/network-auth.ts';
import { httpHandler } from '../../shared/http.ts';
import { callbackUri } from './callback-uri.ts';

/**
 * GET /v1/channels/callback: the network's redirect (no key needed: the state authenticates it;
 * rate-limited by the browser's address like any keyless call); 302 to the client's redirectUrl.
 */
export const handler = httpHandler(
  { auth: 'optional', uses: [networkAuth, connectStates, cipher] },
  async ({ deps, query, event }) => {
    const { location } = await completeCallback(
      deps,
      { state: query.get('state'), code: query.get('code'), error: query.get('error') },
      callbackUri(event),
    );
    return { status: 302, headers: { Location: location, 'Cache-Control': 'no-store' } };
  },
);
