import type { PlatformId } from '../types.ts';
import { vimeoOAuthSimulator } from '../vimeo/oauth-simulator.ts';
import type { SimOAuthMount } from './framework.ts';

/**
 * The OAuth endpoints of the networks the generic simulator stands in for (the networks with a
 * real client mount theirs in their own simulators; linkedin_page has its own LinkedIn simulator).
 */
export const oauthSimulatorFor = (platform: PlatformId): SimOAuthMount | null => {
  switch (platform) {
    case 'vimeo':
      return vimeoOAuthSimulator();
    default:
      return null;
  }
};
