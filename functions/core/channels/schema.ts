import * as z from 'zod';
import { PLATFORM_IDS } from '../../domain/platforms/types.ts';
import { MAX_CHANNELS_PER_CONNECTION } from '../../ports/connect-states.ts';

/**
 * Request and response bodies of the channels routes (issue 11), written once: they validate the
 * requests, type the code and feed the OpenAPI document.
 */

const isLoopback = (hostname: string) =>
  hostname === 'localhost' ||
  hostname === '127.0.0.1' ||
  hostname === '[::1]' ||
  hostname.endsWith('.localhost');

/**
 * Where the browser lands after the callback: an absolute https URL (http only for localhost and
 * loopback addresses, for development), without credentials or a fragment, at most 2,000 characters.
 * `connectCode` or `error` (and `error_description`), and `state`, are added to its query.
 */
export const redirectUrlSchema = z
  .string()
  .max(2000, 'redirectUrl must be at most 2000 characters.')
  .refine((value) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return false;
    }
    if (url.username || url.password || url.hash) return false;
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname));
  }, 'redirectUrl must be an absolute https:// URL (http:// only for localhost), without user info or #fragment.');

export const platformSchema = z.enum(PLATFORM_IDS);

/** POST /v1/channels/connect */
export const connectChannelBody = z.strictObject({
  platform: platformSchema,
  redirectUrl: redirectUrlSchema,
});
export type ConnectChannelBody = z.output<typeof connectChannelBody>;

export const connectChannelResponse = z.object({
  authorizeUrl: z.string(),
  state: z.string(),
  expiresAt: z.string(),
});

/** POST /v1/channels (Bluesky app password) */
export const createChannelBody = z.strictObject({
  platform: z.literal('bluesky'),
  identifier: z.string().trim().min(1, 'identifier is required (handle, DID or email).').max(320),
  appPassword: z.string().min(1, 'appPassword is required.').max(200),
  /** The account's PDS when it is not on bsky.social. */
  service: z
    .string()
    .max(2000)
    .refine((value) => {
      try {
        const url = new URL(value);
        return url.protocol === 'https:' && !url.username && !url.password && !url.hash;
      } catch {
        return false;
      }
    }, 'service must be an https:// URL (the PDS of the account).')
    .optional(),
});
export type CreateChannelBody = z.output<typeof createChannelBody>;

/**
 * The code the callback adds to the redirectUrl: `cc_`, the connection's locator (43 base64url
 * characters) and 32 random base62 characters.
 */
export const CONNECT_CODE_PATTERN = /^cc_([A-Za-z0-9_-]{43})[A-Za-z0-9]{32}$/;
/** The id of a connection waiting for its targets: `con_` and the same locator. */
export const CONNECTION_ID_PATTERN = /^con_([A-Za-z0-9_-]{43})$/;

/** POST /v1/channels/connect/complete */
export const completeConnectBody = z.strictObject({
  connectCode: z
    .string()
    .regex(
      CONNECT_CODE_PATTERN,
      'connectCode must be the code Herald added to your redirectUrl (cc_ and 75 characters).',
    ),
});
export type CompleteConnectBody = z.output<typeof completeConnectBody>;

/** POST /v1/channels/connect/{state}/targets */
export const chooseTargetsBody = z.strictObject({
  targetIds: z
    .array(z.string().min(1).max(200))
    .min(1, 'Choose at least one target.')
    .max(MAX_CHANNELS_PER_CONNECTION)
    .refine((ids) => new Set(ids).size === ids.length, 'targetIds must not repeat.'),
});
export type ChooseTargetsBody = z.output<typeof chooseTargetsBody>;

const status = <T extends [string, ...string[]]>(values: T) => z.enum(values);

/** What `metricsHint` says, in the OpenAPI document. */
export const METRICS_HINT_DESCRIPTION =
  "With metricsStatus missing_permission only: the permission (OAuth scope) the channel's grant lacks to read post metrics, and what to do (reconnect and approve it, or the network app lacks the product or approval that grants it).";

/** A channel as the API shows it (GET /v1/channels, GET /v1/channels/{id}, POST /v1/channels). */
export const channelResponse = z.object({
  id: z.string(),
  platform: z.string(),
  name: z.string(),
  status: status(['connected', 'needs_reconnect']),
  manageStatus: status(['available', 'unsupported', 'missing_permission', 'needs_reconnect']),
  continuationStatus: status(['available', 'unsupported', 'missing_permission', 'needs_reconnect']),
  metricsStatus: status(['available', 'unsupported', 'missing_permission', 'needs_reconnect']),
  metricsHint: z.string().optional().meta({ description: METRICS_HINT_DESCRIPTION }),
  createdAt: z.string(),
});

export const targetResponse = z.object({
  id: z.string(),
  name: z.string(),
  platform: z.string(),
  kind: z.string(),
});

/** GET /v1/channels/connect/{state}/targets */
export const listTargetsResponse = z.object({
  platform: z.string(),
  expiresAt: z.string(),
  data: z.array(targetResponse),
});

/** POST /v1/channels/connect/complete on a network whose account owns targets: choose them next. */
export const pendingTargetsResponse = z.object({
  pending: z.literal('targets'),
  connectionId: z.string(),
  platform: z.string(),
  expiresAt: z.string(),
  data: z.array(targetResponse),
});

/** POST /v1/channels/connect/{state}/targets */
export const chooseTargetsResponse = z.object({ data: z.array(channelResponse) });

/** DELETE /v1/channels/{id} */
export const disconnectResponse = z.object({
  id: z.string(),
  disconnected: z.literal(true),
  revoked: z.boolean(),
});
