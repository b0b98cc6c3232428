import { CfnOutput, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CfnRoute,
  type CfnStage,
  CorsHttpMethod,
  type CorsPreflightOptions,
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Grant, RouteDef } from '../../functions/http/routes.ts';
import {
  CORS_ALLOW_HEADERS,
  CORS_ALLOW_METHODS,
  CORS_EXPOSE_HEADERS,
  CORS_MAX_AGE_SECONDS,
  parseCorsOrigins,
} from '../../functions/shared/cors.ts';
import { ENV } from '../../functions/shared/env.ts';
import { FunctionRoles, grantKey } from './function-roles.ts';
import type { GrantTargets } from './grants.ts';
import { HandlerFunction } from './handler-function.ts';

/** The manifest shape the API is built from (`functions/http/routes.ts` unless a test supplies one). */
export interface RouteManifest {
  readonly routes: readonly RouteDef[];
  /** The dashboard's management routes: JWT only, each behind the user pool's authorizer. */
  readonly userRoutes: readonly RouteDef[];
  readonly fallbackEntry: string;
  /** What the fallback may touch. */
  readonly fallbackGrants: readonly Grant[];
  readonly healthRoute: RouteDef;
  /** Routes without a key (the OpenAPI document and /docs). */
  readonly publicRoutes?: readonly RouteDef[];
}

export interface HeraldHttpApiProps {
  readonly manifest: RouteManifest;
  readonly sourceRoot: string;
  readonly environment: Record<string, string>;
  readonly grantTargets: GrantTargets;
  /** The stage's default: steady-state requests per second and burst, of each route without its own. */
  readonly throttle: Throttle;
  /**
   * Each key-less route's own throttle (health, OpenAPI document and reference page, the OAuth
   * callback, `$default`): callers without a key cannot spend the limits the routes with a key get.
   */
  readonly keylessThrottle: Throttle;
  /** Whose tokens the user routes accept: the user pool's issuer and the dashboard client's id. */
  readonly users: UserTokens;
}

export interface UserTokens {
  /** `https://cognito-idp.<region>.amazonaws.com/<poolId>`. */
  readonly issuer: string;
  /** The app client id (access tokens carry it as `client_id`, which API Gateway accepts as the audience). */
  readonly audience: string;
}

export interface Throttle {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

/** Context key of the browser origins allowed to call the API (comma-separated, or a list in cdk.json). */
export const CORS_ORIGINS_CONTEXT = 'corsOrigins';

/**
 * API Gateway's CORS configuration for the origins of the `corsOrigins` context (the local
 * server's CORS_ORIGINS), from the shared definition in functions/shared/cors.ts; none without.
 */
export const corsPreflightOf = (scope: Construct): CorsPreflightOptions | undefined => {
  const raw: unknown = scope.node.tryGetContext(CORS_ORIGINS_CONTEXT);
  const text = Array.isArray(raw) ? raw.join(',') : raw === undefined || raw === null ? '' : String(raw);
  const allowOrigins = parseCorsOrigins(text, `Context ${CORS_ORIGINS_CONTEXT}`);
  if (allowOrigins.length === 0) return undefined;
  return {
    allowOrigins,
    allowMethods: CORS_ALLOW_METHODS.map((method) => CorsHttpMethod[method]),
    allowHeaders: [...CORS_ALLOW_HEADERS],
    exposeHeaders: [...CORS_EXPOSE_HEADERS],
    maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
  };
};

/** Route key of API Gateway's catch-all route. */
export const DEFAULT_ROUTE_KEY = '$default';

/** `functions/http/posts/retract.ts` -> `PostsRetract`: a stable construct id per handler module. */
export const functionIdFor = (entry: string): string =>
  entry
    .replace(/^functions\/http\//, '')
    .replace(/\.[cm]?[jt]s$/, '')
    .split(/[/\-_.]/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

// HTTP API context variables; no headers are logged, so no credential can end up in the logs.
const ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  requestTime: '$context.requestTime',
  httpMethod: '$context.httpMethod',
  routeKey: '$context.routeKey',
  path: '$context.path',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
});

/**
 * The public HTTP API: one function per manifest route, the health route, and the `$default`
 * route to the fallback function so unknown paths still answer in our JSON error envelope.
 */
export class HeraldHttpApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  /** The stage's access logs: one JSON line per request (route key, status, latency; no headers). */
  readonly accessLogs: LogGroup;
  /** Function serving each route key (`GET /v1/platforms`, `GET /health`, `$default`). */
  readonly functionsByRouteKey = new Map<string, HandlerFunction>();
  /** The JWT authorizer of the user routes (the user pool's tokens). */
  readonly userAuthorizer: HttpJwtAuthorizer;

  constructor(scope: Construct, id: string, props: HeraldHttpApiProps) {
    super(scope, id);
    const byEntry = new Map<
      string,
      { fn: HandlerFunction; integration: HttpLambdaIntegration; grants: string }
    >();

    const handlerFor = (
      entry: string,
      grants: readonly Grant[],
      description: string,
      assets: readonly string[] = [],
    ) => {
      const key = grantKey(grants);
      const existing = byEntry.get(entry);
      if (existing) {
        if (existing.grants !== key) {
          throw new Error(
            `${entry} serves several routes with different grants; give each route its own module`,
          );
        }
        return existing;
      }
      const fnId = functionIdFor(entry);
      const fn = new HandlerFunction(this, fnId, {
        entry,
        sourceRoot: props.sourceRoot,
        description,
        environment: props.environment,
        assets,
        role: FunctionRoles.of(this).roleFor(grants, props.grantTargets),
      });
      const created = {
        fn,
        integration: new HttpLambdaIntegration(`${fnId}Integration`, fn),
        grants: key,
      };
      byEntry.set(entry, created);
      return created;
    };

    const fallback = handlerFor(
      props.manifest.fallbackEntry,
      props.manifest.fallbackGrants,
      'Herald: unmatched routes (404/405 envelope)',
    );
    this.functionsByRouteKey.set(DEFAULT_ROUTE_KEY, fallback.fn);

    const corsPreflight = corsPreflightOf(this);
    this.api = new HttpApi(this, 'Api', {
      description: 'Herald social publishing API',
      createDefaultStage: false,
      defaultIntegration: fallback.integration,
      // API Gateway answers preflights itself and adds the headers to answers to a listed origin.
      ...(corsPreflight ? { corsPreflight } : {}),
    });

    const keyless = [DEFAULT_ROUTE_KEY];
    for (const route of [
      props.manifest.healthRoute,
      ...(props.manifest.publicRoutes ?? []),
      ...props.manifest.routes,
    ]) {
      const routeKey = `${route.method} ${route.path}`;
      const isPublic = route === props.manifest.healthRoute || props.manifest.publicRoutes?.includes(route);
      if (isPublic || route.keyless) keyless.push(routeKey);
      if (this.functionsByRouteKey.has(routeKey)) throw new Error(`Route ${routeKey} is listed twice`);
      const { fn, integration } = handlerFor(route.entry, route.grants, `Herald: ${routeKey}`, route.assets);
      this.api.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration });
      this.functionsByRouteKey.set(routeKey, fn);
    }

    // API Gateway checks the person's token (signature from the pool's JWKS, issuer, expiry, audience)
    // before the function runs; the function reads the verified claims from the request context.
    // Created only when a route uses it.
    this.userAuthorizer = new HttpJwtAuthorizer('Users', props.users.issuer, {
      authorizerName: 'users',
      jwtAudience: [props.users.audience],
    });
    for (const route of props.manifest.userRoutes) {
      const routeKey = `${route.method} ${route.path}`;
      if (this.functionsByRouteKey.has(routeKey)) throw new Error(`Route ${routeKey} is listed twice`);
      const { fn, integration } = handlerFor(route.entry, route.grants, `Herald: ${routeKey}`, route.assets);
      this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration,
        authorizer: this.userAuthorizer,
      });
      this.functionsByRouteKey.set(routeKey, fn);
    }

    // The API's own URL, the base of the OAuth callback the networks are given (unless
    // PUBLIC_BASE_URL names a custom domain): read from configuration, never from a request's Host.
    // No cycle: the API resource itself refers to no function, only its routes and integrations do.
    for (const { fn } of byEntry.values()) fn.addEnvironment(ENV.apiUrl, this.api.apiEndpoint);

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      // API Gateway's default stage: served at the API's root URL, no stage segment in paths.
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(ACCESS_LOG_FORMAT),
      },
    });
    const cfnStage = this.stage.node.defaultChild as CfnStage;
    cfnStage.routeSettings = Object.fromEntries(
      keyless.map((routeKey) => [
        routeKey,
        {
          ThrottlingRateLimit: props.keylessThrottle.rateLimit,
          ThrottlingBurstLimit: props.keylessThrottle.burstLimit,
        },
      ]),
    );
    // A route's settings must name a route that exists when the stage is made (or updated).
    for (const route of this.node.findAll().filter((c): c is CfnRoute => c instanceof CfnRoute))
      cfnStage.node.addDependency(route);

    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        "The key routes are authorised by the functions: each checks an API key (x-api-key or Bearer) in its middleware, which API Gateway cannot do; the dashboard's /v1/account routes have the user pool's JWT authorizer; /health, the OpenAPI document and $default are public by design.",
    });

    new CfnOutput(this, 'Url', { value: this.stage.url, description: 'Base URL of the Herald API' });
  }
}
