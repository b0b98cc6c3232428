/** `npm run bench [-- suite ...]`: runs the named suites (all by default) and updates BENCHMARKS.md. */
import { runBlueskyMedia } from './bluesky-media.ts';
import { runDashboardBundle } from './dashboard-bundle.ts';
import { runLinkedInMedia } from './linkedin-media.ts';
import { runMedia } from './media.ts';
import { runMetrics } from './metrics.ts';
import { runPosts } from './posts.ts';
import { runPublishing } from './publishing.ts';
import { runSpine } from './spine.ts';
import { runTikTokMedia } from './tiktok-media.ts';
import { runVimeoMedia } from './vimeo-media.ts';
import { runWebhooks } from './webhooks.ts';
import { runXMedia } from './x-media.ts';
import { runYouTubeMedia } from './youtube-media.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const suites: Record<string, () => Promise<void>> = {
  spine: runSpine,
  posts: runPosts,
  publishing: runPublishing,
  media: runMedia,
  webhooks: runWebhooks,
  metrics: runMetrics,
  'x-media': runXMedia,
  'linkedin-media': runLinkedInMedia,
  'youtube-media': runYouTubeMedia,
  'bluesky-media': runBlueskyMedia,
  'tiktok-media': runTikTokMedia,
  'vimeo-media': runVimeoMedia,
  'dashboard-bundle': runDashboardBundle,
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = wanted.length ? wanted : Object.keys(suites);
for (const name of names) {
  const suite = suites[name];
  if (!suite) {
    console.error(`Unknown suite ${name}; known: ${Object.keys(suites).join(', ')}`);
    process.exit(2);
  }
  console.log(`Running ${name}...`);
  await suite();
}
process.exit(0);
