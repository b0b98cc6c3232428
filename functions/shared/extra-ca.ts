import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';

let cached: { file: string; context: SecureContext } | undefined;

/**
 * The public roots plus the CAs of `file` (a PEM file), or undefined without one: what the webhook
 * sender and the guarded outbound path trust. Built once per file and shared by both: parsing ~140
 * roots per request costs tens of ms.
 */
export const secureContextWithExtraCa = (file: string | undefined): SecureContext | undefined => {
  if (!file) return undefined;
  if (cached?.file !== file) {
    cached = {
      file,
      context: createSecureContext({ ca: [...rootCertificates, readFileSync(file, 'utf8')] }),
    };
  }
  return cached.context;
};
