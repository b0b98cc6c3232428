import type { PlatformId } from '../../domain/platforms/types.ts';
import type { AppCredentials } from '../../ports/app-credentials.ts';
import type { OAuthApp } from '../../ports/network-auth.ts';

/** App credentials given as configuration (the local runtime presets the simulators' apps). */
export const configuredAppCredentials = (apps: () => Record<string, Partial<OAuthApp>>): AppCredentials => ({
  get: async (platform: PlatformId) => {
    const app = apps()[platform];
    return app?.clientId && app.clientSecret
      ? { clientId: app.clientId, clientSecret: app.clientSecret }
      : null;
  },
});
