/**
 * Sends webhook POSTs over HTTPS. The host is resolved right before connecting and the socket
 * connects to the very addresses just checked (the check lives in the socket's `lookup`), so a DNS
 * answer that changes after the endpoint was saved (DNS rebinding) cannot reach a private address.
 * One fresh connection per delivery; redirects are never followed.
 */
import { request } from 'node:https';
import { isIP } from 'node:net';
import type {
  AttemptErrorCode,
  HostResolver,
  WebhookRequest,
  WebhookResponse,
  WebhookSender,
} from '../../ports/webhooks.ts';
import {
  AddressNotAllowed,
  isAllowedAddress,
  pinnedLookup,
  refusalReason,
  systemResolver,
} from '../../shared/address-policy.ts';
import { secureContextWithExtraCa } from '../../shared/extra-ca.ts';

export interface HttpsWebhookSenderOptions {
  allowLoopback: () => boolean;
  /** A PEM file of CAs to trust besides the public roots. */
  extraCaFile: () => string | undefined;
  resolve?: HostResolver;
}

const TLS_CODES =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL|HOSTNAME_MISMATCH|UNABLE_TO_GET_ISSUER)/;

const classify = (error: Error & { code?: string }): { errorCode: AttemptErrorCode; error: string } => {
  const code = error.code ?? '';
  if (error instanceof AddressNotAllowed) return { errorCode: 'url_not_allowed', error: error.message };
  if (code === 'ENOTFOUND' || code === 'ENODATA' || code === 'EAI_AGAIN' || code === 'ESERVFAIL')
    return { errorCode: 'dns_failed', error: `The host name could not be resolved (${code}).` };
  if (TLS_CODES.test(code) || /certificate|SSL|TLS/i.test(error.message))
    return { errorCode: 'tls_failed', error: `TLS failed: ${error.message}` };
  return {
    errorCode: 'connection_failed',
    error: `Connection failed: ${code ? `${code} ` : ''}${error.message}`.trim(),
  };
};

export class HttpsWebhookSender implements WebhookSender {
  private readonly resolve: HostResolver;

  constructor(private readonly options: HttpsWebhookSenderOptions) {
    this.resolve = options.resolve ?? systemResolver;
  }

  async post(req: WebhookRequest): Promise<WebhookResponse> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const url = new URL(req.url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const policy = { allowLoopback: this.options.allowLoopback() };
    if (isIP(host) && !isAllowedAddress(host, policy)) {
      return {
        ok: false,
        status: null,
        errorCode: 'url_not_allowed',
        error: refusalReason(host, host),
        durationMs: elapsed(),
      };
    }
    // Resolves, refuses the whole host if any of its addresses is not allowed, and hands the
    // checked addresses to the socket: nothing else is connected to.
    const guardedLookup = pinnedLookup(this.resolve, policy);
    const secureContext = secureContextWithExtraCa(this.options.extraCaFile());

    return new Promise<WebhookResponse>((done) => {
      let settled = false;
      const finish = (result: WebhookResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        done(result);
      };
      const outgoing = request(
        {
          protocol: 'https:',
          hostname: host,
          port: url.port === '' ? 443 : Number(url.port),
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers: { ...req.headers, 'Content-Length': Buffer.byteLength(req.body, 'utf8') },
          agent: false,
          lookup: guardedLookup as never,
          ...(secureContext ? { secureContext } : {}),
        },
        (response) => {
          const status = response.statusCode ?? 0;
          // Drain a little of the answer politely, then let the connection go.
          response.resume();
          setTimeout(() => outgoing.destroy(), 1000).unref();
          if (status >= 200 && status < 300) return finish({ ok: true, status, durationMs: elapsed() });
          if (status >= 300 && status < 400) {
            return finish({
              ok: false,
              status,
              errorCode: 'redirect',
              error: `The receiver answered ${status}; redirects are not followed.`,
              durationMs: elapsed(),
            });
          }
          finish({
            ok: false,
            status,
            errorCode: 'http_status',
            error: `The receiver answered ${status}; only 2xx counts as delivered.`,
            durationMs: elapsed(),
          });
        },
      );
      const timer = setTimeout(() => {
        outgoing.destroy();
        finish({
          ok: false,
          status: null,
          errorCode: 'timeout',
          error: `No response within ${req.timeoutMs / 1000} s.`,
          durationMs: elapsed(),
        });
      }, req.timeoutMs);
      outgoing.on('error', (error: Error & { code?: string }) => {
        finish({ ok: false, status: null, ...classify(error), durationMs: elapsed() });
      });
      outgoing.end(req.body);
    });
  }
}
