import { platform as bluesky } from './rules/bluesky.ts';
import { platform as facebook } from './rules/facebook.ts';
import { platform as instagram } from './rules/instagram.ts';
import { platform as linkedin } from './rules/linkedin.ts';
import { platform as linkedinPage } from './rules/linkedin_page.ts';
import { platform as pinterest } from './rules/pinterest.ts';
import { platform as reddit } from './rules/reddit.ts';
import { platform as threads } from './rules/threads.ts';
import { platform as tiktok } from './rules/tiktok.ts';
import { platform as vimeo } from './rules/vimeo.ts';
import { platform as x } from './rules/x.ts';
import { platform as youtube } from './rules/youtube.ts';
import { PLATFORM_IDS, type Platform, type PlatformId } from './types.ts';

const byId: Readonly<Record<PlatformId, Platform>> = {
  x,
  linkedin,
  linkedin_page: linkedinPage,
  instagram,
  facebook,
  threads,
  tiktok,
  youtube,
  vimeo,
  pinterest,
  bluesky,
  reddit,
};

/** Freezes a plain data tree so no reader can change the shared rules by accident. */
const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
};

/**
 * Every supported network's rules, in the order of PLATFORM_IDS, deeply frozen. The single
 * source that GET /v1/platforms serves and the post validator reads.
 */
export const platforms: readonly Platform[] = deepFreeze(PLATFORM_IDS.map((id) => byId[id]));

const platformIds: ReadonlySet<string> = new Set(PLATFORM_IDS);

export const isPlatformId = (id: string): id is PlatformId => platformIds.has(id);

/** The rules of one network, or undefined for an unknown id. */
export const getPlatform = (id: string): Platform | undefined => (isPlatformId(id) ? byId[id] : undefined);
