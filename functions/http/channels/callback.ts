import { completeCallback } from '../../core/channels/connect.ts';
import { httpHandler } from '../../shared/http.ts';
import { callbackUri } from './callback-uri.ts';

/** GET /v1/channels/callback: the network's redirect (no key: the state authenticates it); 302 to the client's redirectUrl. */
export const handler = httpHandler({ auth: 'none' }, async ({ deps, query, event }) => {
  const { location } = await completeCallback(
    deps,
    { state: query.get('state'), code: query.get('code'), error: query.get('error') },
    callbackUri(event),
  );
  return { status: 302, headers: { Location: location, 'Cache-Control': 'no-store' } };
});
