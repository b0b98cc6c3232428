import type { NetworkAuth, NetworkAuthConfig } from '../ports/network-auth.ts';
import { blueskyAuth } from './bluesky/oauth.ts';
import { linkedInMemberAuth } from './linkedin/oauth.ts';
import { linkedInPageAuth } from './linkedin_page/oauth.ts';
import type { PlatformId } from './types.ts';
import { xAuth } from './x/oauth.ts';

/**
 * The one place that knows which networks can connect, and how (issue 11). Each network's
 * `functions/platforms/<network>/oauth.ts` exports a factory `(config) => NetworkAuth` and is
 * added to `factories` below. A network absent here cannot be connected yet: the connect route
 * answers it clearly instead of pretending.
 */
type AuthFactory = (config: NetworkAuthConfig) => NetworkAuth;

const factories: Partial<Record<PlatformId, AuthFactory>> = {
  x: xAuth,
  bluesky: blueskyAuth,
  linkedin: linkedInMemberAuth,
  linkedin_page: linkedInPageAuth,
};

/** The auth per network, built once per config. */
export const networkAuths = (config: NetworkAuthConfig) => {
  const cache = new Map<PlatformId, NetworkAuth>();
  return (platform: PlatformId): NetworkAuth | null => {
    const cached = cache.get(platform);
    if (cached) return cached;
    const factory = factories[platform];
    if (!factory) return null;
    const auth = factory(config);
    cache.set(platform, auth);
    return auth;
  };
};
