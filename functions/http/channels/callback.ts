import type { Context } from 'aws-lambda';
import { completeCallback } from '../../core/channels/grant-completion.ts';
import { cipher } from '../../runtime/parts/cipher.ts';
import { connectStates } from '../../runtime/parts/connect-states.ts';
import { networkAuth } from '../../runtime/parts/network-auth.ts';
import { type HttpEvent, type HttpResult, httpHandler } from '../pipeline.ts';
import { callbackUri } from './callback-uri.ts';
import { errorPage, wantsHtml } from './error-page.ts';

/**
 * GET /v1/channels/callback: the network's redirect (no key needed: the state authenticates it;
 * rate-limited by the browser's address like any keyless call); 302 to the client's redirectUrl
 * with a connect code, which the client's server completes with its key.
 */
const callback = httpHandler(
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

/** A browser (Accept: text/html) that meets an error here gets a small page instead of the JSON envelope. */
export const handler = async (event: HttpEvent, context: Context): Promise<HttpResult> => {
  const result = await callback(event, context as Parameters<typeof callback>[1]);
  return (result.statusCode ?? 200) >= 400 && wantsHtml(event) ? errorPage(result) : result;
};
