/**
 * A live Marketing API version (July 2026, served until about July 2027). Override it with the
 * `LINKEDIN_API_VERSION` environment variable (or `apiVersion`) when LinkedIn sunsets it.
 * Its own module so that the OAuth module can read it without importing the client (which the
 * functions load only when they call LinkedIn).
 */
export const DEFAULT_LINKEDIN_VERSION = '202607';
