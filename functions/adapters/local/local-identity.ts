/**
 * Sign-in for people on this machine: the Cognito emulator with Herald's user pool and app client
 * (created on the first start, their ids kept beside the emulator's data), the stand-in for API
 * Gateway's JWT authorizer that checks its tokens, and the user directory `create-owner` uses.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CognitoIdentityProviderClient,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  SetUserPoolMfaConfigCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import type { UserDirectory } from '../../ports/user-directory.ts';
import { cognitoUserDirectory } from '../aws/cognito-user-directory.ts';
import { startCognitoEmulator } from './cognito-emulator.ts';
import { type JwtAuthorizer, jwtAuthorizer } from './jwt-authorizer.ts';

/** What the dashboard needs to sign in (its `config.json`), and `npm run admin` to reach the pool. */
export interface CognitoSettings {
  endpoint: string;
  region: string;
  userPoolId: string;
  clientId: string;
}

export interface LocalIdentity extends CognitoSettings {
  /** The user pool's issuer (`iss` of its tokens). */
  issuer: string;
  /** API Gateway's JWT authorizer for the user routes, configured for this pool and client. */
  authorize: JwtAuthorizer;
  directory: UserDirectory;
  /** True when the pool was created by this start (its users are new too). */
  createdPool: boolean;
  stop(): Promise<void>;
}

/** The pool and client ids, kept beside the emulator's own files. */
const IDS_FILE = 'herald-pool.json';

/**
 * The user pool as the stack makes it: email as the user name, the same password policy, TOTP MFA
 * optional (each person may turn it on); the app client signs in with a password
 * (USER_PASSWORD_AUTH) and refreshes, with Cognito's default token lifetimes (the emulator's own
 * default is a day).
 */
const createPool = async (client: CognitoIdentityProviderClient) => {
  const pool = await client.send(
    new CreateUserPoolCommand({
      PoolName: 'herald-local',
      UsernameAttributes: ['email'],
      AutoVerifiedAttributes: ['email'],
      Policies: {
        PasswordPolicy: {
          MinimumLength: 12,
          RequireUppercase: true,
          RequireLowercase: true,
          RequireNumbers: true,
          RequireSymbols: true,
        },
      },
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
    }),
  );
  const userPoolId = pool.UserPool?.Id;
  if (!userPoolId) throw new Error('The Cognito emulator created a user pool without an id');
  await client.send(
    new SetUserPoolMfaConfigCommand({
      UserPoolId: userPoolId,
      MfaConfiguration: 'OPTIONAL',
      SoftwareTokenMfaConfiguration: { Enabled: true },
    }),
  );
  const app = await client.send(
    new CreateUserPoolClientCommand({
      UserPoolId: userPoolId,
      ClientName: 'herald-dashboard',
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
      AccessTokenValidity: 60,
      IdTokenValidity: 60,
      RefreshTokenValidity: 30,
      TokenValidityUnits: { AccessToken: 'minutes', IdToken: 'minutes', RefreshToken: 'days' },
    }),
  );
  const clientId = app.UserPoolClient?.ClientId;
  if (!clientId) throw new Error('The Cognito emulator created an app client without an id');
  return { userPoolId, clientId };
};

/** Starts the emulator (data under `dir`) on `port`, or a free port when it is taken. */
export const startLocalIdentity = async (options: { dir: string; port: number }): Promise<LocalIdentity> => {
  const emulator = await startCognitoEmulator({ dir: options.dir, port: options.port, orFree: true });
  try {
    const client = new CognitoIdentityProviderClient({
      endpoint: emulator.endpoint,
      region: emulator.region,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const idsFile = join(options.dir, IDS_FILE);
    const known = existsSync(idsFile)
      ? (JSON.parse(readFileSync(idsFile, 'utf8')) as { userPoolId: string; clientId: string })
      : null;
    const ids = known ?? (await createPool(client));
    if (!known) writeFileSync(idsFile, `${JSON.stringify(ids, null, 2)}\n`);
    const issuer = emulator.issuerOf(ids.userPoolId);
    return {
      endpoint: emulator.endpoint,
      region: emulator.region,
      ...ids,
      issuer,
      authorize: jwtAuthorizer({ issuer, audience: [ids.clientId] }),
      directory: cognitoUserDirectory(client, ids.userPoolId),
      createdPool: !known,
      stop: async () => {
        client.destroy();
        await emulator.stop();
      },
    };
  } catch (error) {
    await emulator.stop();
    throw error;
  }
};
