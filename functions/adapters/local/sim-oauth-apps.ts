import { simOAuthApp } from '../../../simulators/framework/oauth.ts';
import { PLATFORM_IDS, type PlatformId } from '../../domain/platforms/types.ts';
import type { OAuthApp } from '../../ports/network-auth.ts';

/**
 * The app credentials (client id and secret) of each network's app on the local simulators: the
 * local runtime's configuration of every network, so `POST /v1/channels/connect` works on
 * `npm start` without any setup. Bluesky uses app passwords and needs none.
 */
export const SIM_OAUTH_APPS: Record<PlatformId, OAuthApp> = Object.fromEntries(
  PLATFORM_IDS.map((platform) => {
    // `linkedin_page` has an app of its own: LinkedIn's Community Management API must be alone on its app.
    const { clientId, clientSecret } = simOAuthApp(platform);
    return [platform, { clientId, clientSecret }];
  }),
) as Record<PlatformId, OAuthApp>;
