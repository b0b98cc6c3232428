import { isIP } from 'node:net';
import type { SecureContext } from 'node:tls';
import type { OutboundPolicy } from '../ports/outbound.ts';
import {
  type AddressPolicy,
  hostNameProblem,
  isAllowedAddress,
  pinnedLookup,
  refusalReason,
  systemResolver,
} from '../shared/address-policy.ts';
import { secureContextWithExtraCa } from '../shared/extra-ca.ts';
import {
  type HttpAnswer,
  type HttpCall,
  type HttpTransport,
  sendHttp,
  TransportError,
} from './network-http.ts';

/**
 * The one outbound HTTP path for hosts that a client chose or a network's answer named (today the
 * Bluesky PDS, from the `service` field or the account's DID document; any per-channel base URL
 * later). Nothing else may send a token to a host Herald did not choose (ARCHITECTURE.md, "Trust
 * at the edges"):
 *
 * - https only; plain http only to loopback addresses, and only while the local runtime's loopback
 *   allowance is on (its own simulators);
 * - every connection's addresses are resolved, checked by the address policy (public internet
 *   addresses only; loopback locally) and connected to as checked: the socket's `lookup` is the
 *   check, so no second lookup can answer differently (DNS rebinding). A fresh connection per call,
 *   so no socket opened under an earlier answer is reused;
 * - a redirect is never followed: it fails the call, and its target is never contacted.
 *
 * A refusal is a `TransportError` with `sent: false` and code `URL_NOT_ALLOWED` (nothing left this
 * process), a redirect one with `sent: true` and code `REDIRECT_NOT_FOLLOWED`; the classifiers
 * make both a permanent `NetworkError` with `notAllowed` (network-http.ts `transportError`).
 */

const RULE = 'Herald calls a host a client chose or a network named only at public internet addresses';
const HTTP_RULE =
  'plain http:// is allowed only to loopback addresses, for the local runtime’s own simulators';

/** Hosts nobody configured: the strictest policy (the system's DNS, no loopback, no extra CA). */
export const STRICT_OUTBOUND: OutboundPolicy = { resolve: systemResolver, allowLoopback: () => false };

const refuse = (message: string) => new TransportError(false, 'URL_NOT_ALLOWED', message);

const parse = (address: string): URL => {
  try {
    return new URL(address);
  } catch {
    throw refuse(`${address.slice(0, 200)} is not a URL.`);
  }
};

/**
 * Why `url` may not be called under `policy` before any lookup (its scheme, an IP literal, a name
 * that can never resolve), or null; and the address policy its connection must pass.
 */
const precheck = (
  url: URL,
  policy: OutboundPolicy,
): { problem: string | null; host: string; addresses: AddressPolicy; rule: string } => {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const allowLoopback = policy.allowLoopback();
  const plain = url.protocol === 'http:';
  const addresses: AddressPolicy = { allowLoopback, loopbackOnly: plain };
  const rule = plain ? HTTP_RULE : RULE;
  const result = (problem: string | null) => ({ problem, host, addresses, rule });
  const where = `${url.protocol}//${url.host}`;
  if (url.protocol !== 'https:' && !(plain && allowLoopback)) {
    return result(`${where} is not an https:// address; ${RULE}, over https.`);
  }
  if (url.username || url.password) return result(`${where} carries user info; it is not called.`);
  const named = hostNameProblem(host);
  if (named) return result(`${where}: ${named}`);
  // Node looks nothing up for an IP literal, so the pinned lookup never sees it: checked here.
  if (isIP(host)) {
    if (!isAllowedAddress(host, addresses)) return result(refusalReason(host, host, rule));
  }
  return result(null);
};

/**
 * The connection options under which `address` may be connected to through the guarded path (its
 * scheme, an IP literal checked now, every resolved address checked by the pinned lookup), or a
 * rejection with the `URL_NOT_ALLOWED` `TransportError`. `ws:`/`wss:` addresses are checked as
 * `http:`/`https:` (guarded-websocket.ts): `wss` only, `ws` only to loopback in the local runtime.
 */
export const guardedConnectionFor = (
  policy: OutboundPolicy,
  address: string,
): { url: URL; lookup: ReturnType<typeof pinnedLookup>; secureContext?: SecureContext } => {
  const url = parse(address.replace(/^ws(s?):/i, 'http$1:'));
  const { problem, addresses, rule } = precheck(url, policy);
  if (problem) throw refuse(problem);
  const secureContext = secureContextWithExtraCa(policy.extraCaFile?.());
  return {
    url,
    lookup: pinnedLookup(policy.resolve, addresses, rule),
    ...(secureContext ? { secureContext } : {}),
  };
};

/** Sends `call` through the guarded path; rejects with `TransportError` like `sendHttp`. */
export const sendGuarded = async (policy: OutboundPolicy, call: HttpCall): Promise<HttpAnswer> => {
  const url = parse(call.url);
  const { problem, addresses, rule } = precheck(url, policy);
  if (problem) throw refuse(problem);
  const secureContext = secureContextWithExtraCa(policy.extraCaFile?.());
  const answer = await sendHttp(call, {
    lookup: pinnedLookup(policy.resolve, addresses, rule) as never,
    agent: false,
    ...(secureContext ? { secureContext } : {}),
  });
  if (answer.status >= 300 && answer.status < 400) {
    const location = answer.headers.location;
    throw new TransportError(
      true,
      'REDIRECT_NOT_FOLLOWED',
      `${url.origin} answered ${answer.status}${location ? ` redirecting to ${location.slice(0, 200)}` : ''}; redirects from a host a client chose are not followed.`,
    );
  }
  return answer;
};

/**
 * Checks, without calling it, that `address` (a URL a network's answer named, about to be stored)
 * passes the guarded path: its scheme, and every address its host resolves to now. Rejects with
 * the same `TransportError` the call itself would; a host that does not resolve is its own error.
 */
export const checkGuarded = async (policy: OutboundPolicy, address: string): Promise<void> => {
  const url = parse(address);
  const { problem, host, addresses, rule } = precheck(url, policy);
  if (problem) throw refuse(problem);
  if (isIP(host)) return;
  await new Promise<void>((resolve, reject) =>
    pinnedLookup(policy.resolve, addresses, rule)(host, { all: true }, (error) => {
      if (!error) return resolve();
      const code = (error as { code?: string }).code ?? 'EUNKNOWN';
      reject(new TransportError(false, code, error.message));
    }),
  );
};

/** Same scheme, host and port. */
const sameOrigin = (a: string, b: string) => {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
};

/** True when `url` is at one of Herald's own configured hosts (the network's address, the simulator's locally). */
export const isTrusted = (trusted: readonly string[], url: string) =>
  trusted.some((base) => sameOrigin(base, url));

/** A transport that sends to Herald's own configured hosts directly, and to every other host through the guarded path. */
export const transportFor =
  (trusted: readonly string[], policy: OutboundPolicy): HttpTransport =>
  (call) =>
    isTrusted(trusted, call.url) ? sendHttp(call) : sendGuarded(policy, call);
