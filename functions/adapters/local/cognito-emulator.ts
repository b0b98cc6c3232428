/**
 * Amazon Cognito on this machine: the npm package `cognito-local`, run in this process (its
 * Express server and its file stores, under `<DATA_DIR>/cognito`). It is assembled here rather
 * than through the package's `createDefaultServer`, which loads the AWS SDK v2 for Lambda
 * triggers Herald does not use (about half a second of start-up); everything else is the
 * package's own: the user-pool API the SDK and the dashboard call, the tokens it signs, its JWKS.
 */
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

/** Where the emulator answers and whose tokens it signs. */
export interface CognitoEmulator {
  /** The user-pool API (`POST /` with `X-Amz-Target`), as the SDK's `endpoint`. */
  endpoint: string;
  /** The region the emulator names its pools with (`local_…`). */
  region: string;
  /** A user pool's issuer, as its tokens carry it in `iss`: `<endpoint>/<userPoolId>`. */
  issuerOf(userPoolId: string): string;
  stop(): Promise<void>;
}

interface CognitoLocalConfig {
  TokenConfig: { IssuerDomain: string };
  UserPoolDefaults: Record<string, unknown>;
  TriggerFunctions: Record<string, unknown>;
  ServerConfig: Record<string, unknown>;
}

const load = createRequire(import.meta.url);
/** A module of the package (CommonJS), or of its own dependencies (pino). */
const fromPackage = (path: string) => load(`cognito-local/lib/${path}`);
const fromItsDependencies = (name: string) => createRequire(load.resolve('cognito-local/package.json'))(name);

const HOST = '127.0.0.1';

/**
 * Starts the emulator on `port` (0: a free one; with `orFree`, a free one when `port` is taken)
 * with its data under `dir`.
 */
export const startCognitoEmulator = async (options: {
  dir: string;
  port: number;
  orFree?: boolean;
}): Promise<CognitoEmulator> => {
  mkdirSync(options.dir, { recursive: true });
  const services = fromPackage('services/index.js');
  const { CognitoServiceFactoryImpl } = fromPackage('services/cognitoService.js');
  const { StormDBDataStoreFactory } = fromPackage('services/dataStore/stormDb.js');
  const { MessageDeliveryService } = fromPackage('services/messageDelivery/messageDelivery.js');
  const { ConsoleMessageSender } = fromPackage('services/messageDelivery/consoleMessageSender.js');
  const { otp } = fromPackage('services/otp.js');
  const { JwtTokenGenerator } = fromPackage('services/tokenGenerator.js');
  const { UserPoolServiceFactoryImpl } = fromPackage('services/userPoolService.js');
  const { DefaultConfig } = fromPackage('server/config.js');
  const { Router } = fromPackage('server/Router.js');
  const { createServer } = fromPackage('server/server.js');
  const pino = fromItsDependencies('pino');

  const logger = pino({ level: 'silent' });
  const ctx = { logger };
  // Its issuer is set once the port is known (the token generator reads it when it signs).
  const config: CognitoLocalConfig = {
    ...DefaultConfig,
    TriggerFunctions: {},
    UserPoolDefaults: { UsernameAttributes: ['email'] },
    TokenConfig: { IssuerDomain: '' },
    ServerConfig: { port: options.port, hostname: HOST, development: false, https: false },
  };
  const clock = new services.DateClock();
  const dataStores = new StormDBDataStoreFactory(options.dir);
  const cognito = await new CognitoServiceFactoryImpl(
    options.dir,
    dataStores,
    new UserPoolServiceFactoryImpl(clock, dataStores),
  ).create(ctx, config.UserPoolDefaults);
  // No trigger is configured, so neither the Lambda client nor the KMS decryption is ever called.
  const unused = new Proxy(
    {},
    {
      get: () => {
        throw new Error('cognito-local triggers are not configured in Herald');
      },
    },
  );
  const triggers = new services.TriggersService(
    clock,
    cognito,
    new services.LambdaService(config.TriggerFunctions, unused),
    unused,
  );
  const all = {
    clock,
    cognito,
    config,
    messages: new services.MessagesService(triggers, new MessageDeliveryService(new ConsoleMessageSender())),
    otp,
    tokenGenerator: new JwtTokenGenerator(clock, triggers, config.TokenConfig),
    triggers,
  };
  const listen = (port: number) =>
    createServer(Router(all), logger, { ...config.ServerConfig, port }, all).start() as Promise<Server>;
  const server = await listen(options.port).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE' && options.orFree && options.port !== 0) return listen(0);
    throw error;
  });
  const endpoint = `http://${HOST}:${(server.address() as AddressInfo).port}`;
  config.TokenConfig.IssuerDomain = endpoint;
  return {
    endpoint,
    region: 'local',
    issuerOf: (userPoolId) => `${endpoint}/${userPoolId}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
