import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { PlatformId } from '../../domain/platforms/types.ts';
import type { AppCredentials } from '../../ports/app-credentials.ts';
import type { OAuthApp } from '../../ports/network-auth.ts';

/**
 * Each network's app credentials from its Secrets Manager secret `<prefix><network>`, holding
 * `{"clientId":"…","clientSecret":"…"}` (created empty by the stateful stack; docs/operating-on-aws.md says how
 * to fill it). An empty or half-filled secret means "not configured". Values are cached for five
 * minutes per Lambda instance, so a newly filled secret is seen without a deploy.
 */
export class SecretsManagerAppCredentials implements AppCredentials {
  private readonly cache = new Map<PlatformId, { at: number; app: OAuthApp | null }>();
  private client: SecretsManagerClient | undefined;

  constructor(
    private readonly prefix: string,
    private readonly options: {
      /** Called with the SDK client once it is built (the container's decorators). */
      onClient?: (client: SecretsManagerClient) => void;
      ttlMs?: number;
    } = {},
  ) {}

  async get(platform: PlatformId): Promise<OAuthApp | null> {
    const cached = this.cache.get(platform);
    if (cached && Date.now() - cached.at < (this.options.ttlMs ?? 300_000)) return cached.app;
    let app: OAuthApp | null = null;
    try {
      const out = await this.sdk().send(new GetSecretValueCommand({ SecretId: `${this.prefix}${platform}` }));
      app = parseApp(out.SecretString);
    } catch (error) {
      // A secret that does not exist (or has no value yet) is a network without credentials.
      const name = (error as { name?: string }).name;
      if (name !== 'ResourceNotFoundException') throw error;
    }
    this.cache.set(platform, { at: Date.now(), app });
    return app;
  }

  private sdk(): SecretsManagerClient {
    if (!this.client) {
      this.client = new SecretsManagerClient({});
      this.options.onClient?.(this.client);
    }
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
