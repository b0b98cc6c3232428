import type { PlatformId } from '../domain/platforms/types.ts';
import type { NetworkAuth, NetworkAuthConfig } from '../ports/network-auth.ts';
import { blueskyAuth } from './bluesky/oauth.ts';
import { facebookAuth } from './facebook/oauth.ts';
import { instagramAuth } from './instagram/oauth.ts';
import { linkedInMemberAuth } from './linkedin/oauth.ts';
import { linkedInPageAuth } from './linkedin_page/oauth.ts';
import { pinterestAuth } from './pinterest/oauth.ts';
import { redditAuth } from './reddit/oauth.ts';
import { threadsAuth } from './threads/oauth.ts';
import { tiktokAuth } from './tiktok/oauth.ts';
import { vimeoAuth } from './vimeo/oauth.ts';
import { xAuth } from './x/oauth.ts';
import { youtubeAuth } from './youtube/oauth.ts';

/**
 * The one place that knows how each network connects (issue 11): each network's
 * `functions/platforms/<network>/oauth.ts` exports a factory `(config) => NetworkAuth`, listed in
 * `factories` below. Every network of the catalog has one; a platform absent here cannot be
 * connected, and the connect route answers it clearly instead of pretending.
 */
type AuthFactory = (config: NetworkAuthConfig) => NetworkAuth;

const factories: Partial<Record<PlatformId, AuthFactory>> = {
  x: xAuth,
  bluesky: blueskyAuth,
  linkedin: linkedInMemberAuth,
  linkedin_page: linkedInPageAuth,
  facebook: facebookAuth,
  instagram: instagramAuth,
  threads: threadsAuth,
  pinterest: pinterestAuth,
  reddit: redditAuth,
  tiktok: tiktokAuth,
  youtube: youtubeAuth,
  vimeo: vimeoAuth,
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
