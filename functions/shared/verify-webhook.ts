/**
 * Verifies Herald webhook deliveries. Dependency-free (only `node:crypto`), so subscribers can
 * copy this one file into their receiver.
 *
 * The header `x-herald-signature` is `t=<unix seconds>,v1=<hex>` where `v1` is the HMAC-SHA256,
 * keyed with the endpoint's signing secret (the whole `whsec_...` string, UTF-8), of
 * `<t>.<raw request body>`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-herald-signature';

/** `t=<unix>,v1=<hex>` for `rawBody` signed at `timestamp` (unix seconds) with `secret`. */
export const signWebhook = (rawBody: string | Uint8Array, secret: string, timestamp: number): string => {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestamp}.`, 'utf8');
  hmac.update(rawBody);
  return `t=${timestamp},v1=${hmac.digest('hex')}`;
};

/** The parts of a signature header: its timestamp and every `v1` signature in it. */
export const parseSignatureHeader = (
  header: string | null | undefined,
): { timestamp: number; signatures: string[] } | null => {
  if (typeof header !== 'string' || header.length > 4096) return null;
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (name === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  return timestamp === null || signatures.length === 0 ? null : { timestamp, signatures };
};

/**
 * True when `header` carries a valid signature of `rawBody` (the body exactly as received, not
 * parsed and re-encoded) by one of `secrets`, made at most `toleranceSeconds` from now. Pass the
 * old and the new secret for a few minutes after rolling it.
 */
export const verifyWebhook = (
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secrets: string | readonly string[],
  toleranceSeconds = 300,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): boolean => {
  const parsed = parseSignatureHeader(header);
  if (!parsed) return false;
  if (Math.abs(nowSeconds - parsed.timestamp) > toleranceSeconds) return false;
  const received = parsed.signatures.map((hex) => Buffer.from(hex, 'hex'));
  let valid = false;
  // Every comparison runs, so the time taken does not tell which secret or signature matched.
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets) {
    if (typeof secret !== 'string' || secret === '') continue;
    const expected = Buffer.from(
      createHmac('sha256', secret).update(`${parsed.timestamp}.`, 'utf8').update(rawBody).digest('hex'),
      'hex',
    );
    for (const candidate of received) {
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) valid = true;
    }
  }
  return valid;
};
