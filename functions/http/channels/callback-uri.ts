import { env } from '../../shared/env.ts';
import type { HttpEvent } from '../pipeline.ts';

/**
 * Herald's OAuth callback as the networks must know it: `<PUBLIC_BASE_URL or API_URL>/v1/channels/callback`,
 * from configuration only. The request (its `Host` header, the event's `domainName`) is never
 * read: whoever sends it must not choose where a network sends a user's authorization code.
 */
export const callbackUri = (_event: HttpEvent): string => {
  const base = env.publicBaseUrl ?? env.apiUrl;
  if (!base) {
    throw new Error(
      'The OAuth callback URL is not configured: set PUBLIC_BASE_URL (custom domain) or API_URL (the stack sets it)',
    );
  }
  return `${base}/v1/channels/callback`;
};
