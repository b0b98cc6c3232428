/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (see lib/bundling/options.ts).
 *
 * Every SDK client's Node.js runtime config imports that package's `defaultProvider`, and with it
 * the whole default chain: SSO, INI files, credential processes, web identity, the container and
 * instance metadata services, and the STS/SSO clients of `@aws-sdk/nested-clients` (about 90 KiB
 * minified in every function). A client given `credentials` still bundles the chain, because the
 * import is static (aws/aws-sdk-js-v3 issues 5516 and 6087). On Lambda the function's role
 * credentials are always in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN), which is the first link of that chain, so the deployed functions keep only
 * that link. The local runtime and the tests run the real package: nothing changes there.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

type FromEnvInit = Parameters<typeof fromEnv>[0];

/** The default chain reduced to its first link: the environment's credentials, or a clear error. */
export const defaultProvider = (init: FromEnvInit = {}) => fromEnv(init);
