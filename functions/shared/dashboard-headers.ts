/**
 * The security headers of every dashboard file: one definition for CloudFront's response headers
 * policy (the stack) and the local runtime's `/dashboard` serving, so both runtimes send the same.
 *
 * The Content-Security-Policy allows only the dashboard's own files: no inline script or style, no
 * third-party origin, no framing. Its one outside origin is the Cognito endpoint the sign-in form
 * calls (`cognito-idp.<region>.amazonaws.com` on AWS, the emulator's address locally); the API is
 * same-origin (`/v1/*`).
 */
export interface DashboardHeaderOptions {
  /** The Cognito endpoint the browser signs in with, as an origin (`https://host[:port]`). */
  cognitoOrigin: string;
}

/** The origin of a URL, refusing anything that is not http(s): it goes into a CSP. */
const originOf = (url: string): string => {
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new Error(`The Cognito endpoint must be an http(s) URL, not ${parsed.protocol}`);
  }
  return parsed.origin;
};

/** The Content-Security-Policy of the dashboard's files. */
export const dashboardCsp = ({ cognitoOrigin }: DashboardHeaderOptions): string =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ${originOf(cognitoOrigin)}`,
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');

/** Every security header a dashboard file is served with (names as CloudFront and browsers spell them). */
export const dashboardSecurityHeaders = (options: DashboardHeaderOptions): Record<string, string> => ({
  'Content-Security-Policy': dashboardCsp(options),
  'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
});
