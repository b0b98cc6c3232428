import { createRequire } from 'node:module';
import type { PlatformId } from '../../platforms/types.ts';
import type { AppCredentials } from '../../ports/app-credentials.ts';
import type { OAuthApp } from '../../ports/network-auth.ts';

/** The part of `@aws-sdk/client-secrets-manager` this adapter uses. */
export interface SecretsManagerModule {
  SecretsManagerClient: new (
    config: object,
  ) => { send(command: unknown): Promise<{ SecretString?: string }> };
  GetSecretValueCommand: new (input: { SecretId: string }) => unknown;
}

/**
 * Each network's app credentials from its Secrets Manager secret `<prefix><network>`, holding
 * `{"clientId":"…","clientSecret":"…"}` (created empty by the stateful stack; the README says how
 * to fill it). An empty or half-filled secret means "not configured". Values are cached for five
 * minutes per Lambda instance, so a newly filled secret is seen without a deploy.
 *
 * The SDK client is loaded when first needed, by name: esbuild leaves the require to run time, where
 * the Lambda Node.js runtime provides AWS SDK v3 (`@aws-sdk/client-secrets-manager`, found through
 * NODE_PATH, which only `require` reads: an ESM `import()` would not find it). Adding the package to
 * package.json's dependencies (and a static import here) would bundle a pinned copy instead.
 */
export class SecretsManagerAppCredentials implements AppCredentials {
  private readonly cache = new Map<PlatformId, { at: number; app: OAuthApp | null }>();
  private client: Promise<{ send(command: unknown): Promise<{ SecretString?: string }> }> | undefined;
  private module: SecretsManagerModule | undefined;

  constructor(
    private readonly prefix: string,
    private readonly options: {
      /** Called with the SDK client once it is built (the container's decorators). */
      onClient?: (client: object) => void;
      ttlMs?: number;
      /** Loads the SDK module (tests pass a fake). */
      load?: () => Promise<SecretsManagerModule>;
    } = {},
  ) {}

  async get(platform: PlatformId): Promise<OAuthApp | null> {
    const cached = this.cache.get(platform);
    if (cached && Date.now() - cached.at < (this.options.ttlMs ?? 300_000)) return cached.app;
    const client = await this.sdk();
    const { GetSecretValueCommand } = this.module as SecretsManagerModule;
    let app: OAuthApp | null = null;
    try {
      const out = await client.send(new GetSecretValueCommand({ SecretId: `${this.prefix}${platform}` }));
      app = parseApp(out.SecretString);
    } catch (error) {
      // A secret that does not exist (or has no value yet) is a network without credentials.
      const name = (error as { name?: string }).name;
      if (name !== 'ResourceNotFoundException') throw error;
    }
    this.cache.set(platform, { at: Date.now(), app });
    return app;
  }

  private sdk() {
    this.client ??= (async () => {
      const moduleName = '@aws-sdk/client-secrets-manager';
      this.module = await (this.options.load?.() ??
        Promise.resolve(createRequire(import.meta.url)(moduleName) as SecretsManagerModule));
      const client = new this.module.SecretsManagerClient({});
      this.options.onClient?.(client);
      return client;
    })();
    return this.client;
  }
}

/** The secret's JSON, or null when it is empty or lacks a field. */
export const parseApp = (secret: string | undefined): OAuthApp | null => {
  if (!secret) return null;
  try {
    const value = JSON.parse(secret) as Partial<OAuthApp>;
    return typeof value.clientId === 'string' &&
      value.clientId !== '' &&
      typeof value.clientSecret === 'string' &&
      value.clientSecret !== ''
      ? { clientId: value.clientId, clientSecret: value.clientSecret }
      : null;
  } catch {
    return null;
  }
};
