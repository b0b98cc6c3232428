import { SimHttpError, type SimResponse } from '../framework/framework.ts';

/**
 * The OAuth scopes each YouTube Data API method the simulator serves accepts (any one of them), as
 * Google's discovery document lists them under each method's `scopes`
 * (https://www.googleapis.com/discovery/v1/apis/youtube/v3/rest, mirrored in
 * https://github.com/googleapis/google-api-go-client/blob/main/youtube/v3/youtube-api.json) and the
 * reference pages' "Authorization" tables (e.g.
 * https://developers.google.com/youtube/v3/docs/videos/insert#auth). `captions.insert` takes only
 * `youtube.force-ssl` or `youtubepartner`; `thumbnails.set` also takes `youtube.upload`.
 *
 * The YouTube Analytics API (`yt-analytics.readonly`) is not served: Herald reads a video's counts
 * from `videos.list?part=statistics`, which `youtube.readonly` covers.
 */
const scope = (name: string) => `https://www.googleapis.com/auth/${name}`;

export const YOUTUBE_METHOD_SCOPES = {
  'videos.insert': ['youtube', 'youtube.force-ssl', 'youtube.upload', 'youtubepartner'],
  'videos.list': ['youtube', 'youtube.force-ssl', 'youtube.readonly', 'youtubepartner'],
  'videos.update': ['youtube', 'youtube.force-ssl', 'youtubepartner'],
  'videos.delete': ['youtube', 'youtube.force-ssl', 'youtubepartner'],
  'thumbnails.set': ['youtube', 'youtube.force-ssl', 'youtube.upload', 'youtubepartner'],
  'captions.insert': ['youtube.force-ssl', 'youtubepartner'],
  'channels.list': [
    'youtube',
    'youtube.force-ssl',
    'youtube.readonly',
    'youtubepartner',
    'youtubepartner-channel-audit',
  ],
  'playlistItems.list': ['youtube', 'youtube.force-ssl', 'youtube.readonly', 'youtubepartner'],
  // Comments take `youtube.force-ssl` alone (the discovery document lists no other scope for them).
  'commentThreads.list': ['youtube.force-ssl'],
  'comments.list': ['youtube.force-ssl'],
  'comments.insert': ['youtube.force-ssl'],
  'comments.delete': ['youtube.force-ssl'],
} as const satisfies Record<string, readonly string[]>;

export type YouTubeMethod = keyof typeof YOUTUBE_METHOD_SCOPES;

/**
 * Google's refusal of a token granted none of the method's scopes: 403 `insufficientPermissions`,
 * "Request had insufficient authentication scopes." with `status: PERMISSION_DENIED`, and a
 * `WWW-Authenticate: Bearer … error="insufficient_scope", scope="…"` header naming the scopes that
 * would do (as Google's front end answers every API).
 */
export const insufficientScopes = (method: YouTubeMethod): SimResponse => ({
  status: 403,
  headers: {
    'www-authenticate': `Bearer realm="https://accounts.google.com/", error="insufficient_scope", scope="${YOUTUBE_METHOD_SCOPES[method].map(scope).join(' ')}"`,
  },
  body: {
    error: {
      code: 403,
      message: 'Request had insufficient authentication scopes.',
      errors: [{ message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' }],
      status: 'PERMISSION_DENIED',
    },
  },
});

/**
 * Throws Google's refusal unless the token's grant holds one of `method`'s scopes. A token the
 * simulator did not issue (`scopesOf` answers null: pasted into the admin CLI, or a test's own) is
 * not checked, as the simulators' OAuth rules say.
 */
export const requireYouTubeScope = (
  scopesOf: (token: string) => readonly string[] | null,
  token: string | null,
  method: YouTubeMethod,
) => {
  const granted = token ? scopesOf(token) : null;
  if (granted === null) return;
  if (YOUTUBE_METHOD_SCOPES[method].some((name) => granted.includes(scope(name)))) return;
  throw new SimHttpError(insufficientScopes(method));
};
