import type { OutboundPolicy } from '../../ports/outbound.ts';
import type { HostResolver, WebhookSettings } from '../../ports/webhooks.ts';
import { systemResolver } from '../../shared/address-policy.ts';
import { env } from '../../shared/env.ts';
import { part } from '../compose.ts';

/** The webhook settings of the environment (see env.ts); the rest are product rules. */
export const webhookSettingsFromEnv = (): WebhookSettings => ({
  retryBaseSeconds: env.webhookRetryBaseSeconds,
  timeoutMs: Math.round(env.webhookTimeoutSeconds * 1000),
  allowLoopback: env.webhookAllowLoopback,
  sweepAfterSeconds: env.webhookSweepAfterSeconds,
  disableAfterFailedEvents: 5,
  maxEndpointsPerWorkspace: 20,
});

export interface OutboundDeps {
  /** DNS, to check that an address a client gives (a webhook URL, a PDS) is public. */
  resolveHost: HostResolver;
  /** Read from the environment on each call. */
  webhookSettings: () => WebhookSettings;
}

/** Where Herald may send requests a client chose: the address policy's resolver and settings. */
export const outbound = part({
  name: 'outbound',
  keys: ['resolveHost', 'webhookSettings'],
  build: (): OutboundDeps => ({ resolveHost: systemResolver, webhookSettings: webhookSettingsFromEnv }),
});

/**
 * The guarded path's policy (platforms/guarded-http.ts) for the network clients and flows: the
 * outbound part's resolver (read at each call, so a test's override reaches it), the webhooks'
 * loopback allowance (the local runtime's) and extra CAs.
 */
export const outboundPolicyOf = (deps: OutboundDeps): OutboundPolicy => ({
  resolve: (hostname) => deps.resolveHost(hostname),
  allowLoopback: () => deps.webhookSettings().allowLoopback,
  extraCaFile: () => env.webhookExtraCaCerts,
});
