import { env } from '../../shared/env.ts';
import type { HttpEvent } from '../../shared/http.ts';

/**
 * Herald's OAuth callback as the networks must know it: `<PUBLIC_BASE_URL>/v1/channels/callback`,
 * or, without PUBLIC_BASE_URL, the host the request came to (https on AWS, http locally).
 */
export const callbackUri = (event: HttpEvent): string => {
  const base =
    env.publicBaseUrl ?? `${env.runtime === 'local' ? 'http' : 'https'}://${event.requestContext.domainName}`;
  return `${base}/v1/channels/callback`;
};
