import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import {
  parseApp,
  SecretsManagerAppCredentials,
} from '../../functions/adapters/aws/secrets-app-credentials.ts';
import { configuredAppCredentials } from '../../functions/adapters/local/configured-app-credentials.ts';
import { guardAppCredentials, runAsFunction } from '../../functions/adapters/local/grant-guard.ts';
import { appFor, NO_APP } from '../../functions/ports/app-credentials.ts';

const secretsManager = mockClient(SecretsManagerClient);
afterEach(() => secretsManager.reset());

/** Secrets by id, answered as Secrets Manager does (a missing one: ResourceNotFoundException); returns the ids asked for. */
const serveSecrets = (secrets: Record<string, string | undefined>) => {
  const asked: string[] = [];
  secretsManager.on(GetSecretValueCommand).callsFake(async (input: { SecretId: string }) => {
    asked.push(input.SecretId);
    if (!(input.SecretId in secrets)) {
      throw Object.assign(new Error("Secrets Manager can't find the specified secret."), {
        name: 'ResourceNotFoundException',
      });
    }
    return { SecretString: secrets[input.SecretId] };
  });
  return asked;
};

describe('network app credentials', () => {
  it('reads one secret per network, `<prefix><network>`, and caches it', async () => {
    const asked = serveSecrets({
      'herald-dev/network-app/x': '{"clientId":"id","clientSecret":"secret"}',
      'herald-dev/network-app/reddit': '{}',
    });
    const apps = new SecretsManagerAppCredentials('herald-dev/network-app/');
    expect(await apps.get('x')).toEqual({ clientId: 'id', clientSecret: 'secret' });
    expect(await apps.get('x')).toEqual({ clientId: 'id', clientSecret: 'secret' });
    expect(asked).toEqual(['herald-dev/network-app/x']);
    // Created empty by the stack: not configured.
    expect(await apps.get('reddit')).toBeNull();
    // No secret at all: not configured either.
    expect(await apps.get('vimeo')).toBeNull();
  });

  it('an empty, half-filled or malformed secret is "not configured"', () => {
    expect(parseApp(undefined)).toBeNull();
    expect(parseApp('')).toBeNull();
    expect(parseApp('{}')).toBeNull();
    expect(parseApp('{"clientId":"a"}')).toBeNull();
    expect(parseApp('{"clientId":"a","clientSecret":""}')).toBeNull();
    expect(parseApp('not json')).toBeNull();
    expect(parseApp('{"clientId":"a","clientSecret":"b","extra":1}')).toEqual({
      clientId: 'a',
      clientSecret: 'b',
    });
  });

  it('Secrets Manager errors other than a missing secret are not hidden', async () => {
    secretsManager
      .on(GetSecretValueCommand)
      .rejects(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }));
    const apps = new SecretsManagerAppCredentials('p/');
    await expect(apps.get('x')).rejects.toThrow('denied');
  });

  it('app-password networks need no app; OAuth networks without one are not configured', async () => {
    const none = configuredAppCredentials(() => ({}));
    expect(await appFor(none, 'bluesky', 'app_password')).toEqual(NO_APP);
    expect(await appFor(none, 'x', 'oauth2')).toBeNull();
    const some = configuredAppCredentials(() => ({ x: { clientId: 'c', clientSecret: 's' } }));
    expect(await appFor(some, 'x', 'oauth2')).toEqual({ clientId: 'c', clientSecret: 's' });
  });

  it('locally, reading an app needs the appSecrets:read grant, as on AWS', async () => {
    const guarded = guardAppCredentials(
      configuredAppCredentials(() => ({ x: { clientId: 'c', clientSecret: 's' } })),
    );
    const fn = (grants: ('table:read' | 'appSecrets:read')[]) => ({
      id: 'POST /v1/channels/connect',
      name: 'http-channels-connect',
      grants,
    });
    await expect(runAsFunction(fn(['table:read']), () => guarded.get('x'))).rejects.toMatchObject({
      name: 'AccessDeniedException',
    });
    await expect(
      runAsFunction(fn(['table:read', 'appSecrets:read']), () => guarded.get('x')),
    ).resolves.toEqual({
      clientId: 'c',
      clientSecret: 's',
    });
  });
});
