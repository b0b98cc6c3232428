/**
 * The dashboard's people: the user pool and its app client (stateful stack), and API Gateway's JWT
 * authorizer on every management route (stateless stack), none on a key route.
 */
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import type { RouteDef } from '../../functions/http/routes.ts';
import type { RouteManifest } from '../../lib/constructs/http-api.ts';
import { buildTestApp, logicalIdOf, manifest } from './fixture.ts';

// The management routes as issue 29 lists them (a sample of each kind): the real list lands in
// functions/http/routes.ts; these prove the wiring whatever it holds.
const userRoute = (method: RouteDef['method'], path: string, entry: string): RouteDef => ({
  method,
  path,
  entry,
  grants: ['table:read', 'table:write'],
});
const sampleUserRoutes: RouteDef[] = [
  userRoute('GET', '/v1/account', 'functions/http/account/get.ts'),
  userRoute('GET', '/v1/account/workspaces', 'functions/http/account/workspaces/list.ts'),
  userRoute('POST', '/v1/account/workspaces/{workspaceId}/keys', 'functions/http/account/keys/create.ts'),
  userRoute(
    'DELETE',
    '/v1/account/workspaces/{workspaceId}/keys/{keyId}',
    'functions/http/account/keys/revoke.ts',
  ),
];
const keyOf = (route: RouteDef) => `${route.method} ${route.path}`;
const known = new Set(manifest.userRoutes.map(keyOf));
const withUsers: RouteManifest = {
  ...manifest,
  userRoutes: [...manifest.userRoutes, ...sampleUserRoutes.filter((route) => !known.has(keyOf(route)))],
};

const { stateful, stateless } = buildTestApp({ manifest: withUsers });
const pools = Template.fromStack(stateful);
const api = Template.fromStack(stateless).toJSON();
const resources = api.Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

describe('the user pool', () => {
  it('signs in by email, no self sign-up, a strong password, optional TOTP, recovery by email, threat protection, retained', () => {
    pools.resourceCountIs('AWS::Cognito::UserPool', 1);
    // RetainExceptOnCreate, as every stateful resource: a failed first deploy can simply be rerun.
    pools.hasResource('AWS::Cognito::UserPool', {
      DeletionPolicy: 'RetainExceptOnCreate',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        UserPoolName: 'herald-dev',
        UsernameAttributes: ['email'],
        UsernameConfiguration: { CaseSensitive: false },
        AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
        Policies: {
          PasswordPolicy: {
            MinimumLength: 12,
            RequireLowercase: true,
            RequireUppercase: true,
            RequireNumbers: true,
            RequireSymbols: true,
          },
        },
        MfaConfiguration: 'OPTIONAL',
        EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
        AccountRecoverySetting: { RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }] },
        UserPoolTier: 'PLUS',
        UserPoolAddOns: { AdvancedSecurityMode: 'ENFORCED' },
        DeletionProtection: 'ACTIVE',
      },
    });
  });

  it('has one public app client: password and SRP sign-in with refresh, 1 h access tokens, 30 d refresh, no existence leaks, revocable', () => {
    pools.resourceCountIs('AWS::Cognito::UserPoolClient', 1);
    pools.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      UserPoolId: { Ref: logicalIdOf(stateful, stateful.users.userPool) },
      GenerateSecret: false,
      ExplicitAuthFlows: Match.arrayEquals([
        'ALLOW_USER_PASSWORD_AUTH',
        'ALLOW_USER_SRP_AUTH',
        'ALLOW_REFRESH_TOKEN_AUTH',
      ]),
      AccessTokenValidity: 60,
      RefreshTokenValidity: 43200,
      TokenValidityUnits: { AccessToken: 'minutes', RefreshToken: 'minutes' },
      PreventUserExistenceErrors: 'ENABLED',
      EnableTokenRevocation: true,
      AllowedOAuthFlowsUserPoolClient: false,
    });
    const [client] = Object.values(pools.findResources('AWS::Cognito::UserPoolClient'));
    expect(client?.Properties.AllowedOAuthFlows).toBeUndefined();
  });
});

describe('the JWT authorizer', () => {
  const authorizers = ofType('AWS::ApiGatewayV2::Authorizer');
  const routes = ofType('AWS::ApiGatewayV2::Route');
  const routeKeyOf = (props: Record<string, unknown>) => props.RouteKey as string;
  const [authorizerId, authorizer] = authorizers[0] ?? [];

  it('checks the user pool as issuer and the dashboard client as audience, from the Authorization header', () => {
    expect(authorizers).toHaveLength(1);
    const importOf = (value: unknown) => JSON.stringify(value);
    expect(authorizer?.Properties).toMatchObject({
      AuthorizerType: 'JWT',
      Name: 'users',
      IdentitySource: ['$request.header.Authorization'],
    });
    const config = authorizer?.Properties.JwtConfiguration as { Audience: unknown[]; Issuer: unknown };
    expect(config.Audience).toHaveLength(1);
    // Both come from the stateful stack: the client's id, and the issuer built from the pool's id.
    expect(importOf(config.Audience[0])).toContain('Fn::ImportValue');
    expect(importOf(config.Audience[0])).toContain(logicalIdOf(stateful, stateful.users.client));
    expect(config.Issuer).toEqual({
      'Fn::Join': [
        '',
        [
          'https://cognito-idp.',
          { Ref: 'AWS::Region' },
          '.amazonaws.com/',
          { 'Fn::ImportValue': expect.stringContaining(logicalIdOf(stateful, stateful.users.userPool)) },
        ],
      ],
    });
  });

  it('guards every user route and no key, public or health route', () => {
    const userKeys = new Set(withUsers.userRoutes.map((r) => `${r.method} ${r.path}`));
    expect(userKeys.size).toBeGreaterThanOrEqual(sampleUserRoutes.length);
    const guarded = routes.filter(([, r]) => r.Properties.AuthorizationType === 'JWT');
    expect(guarded.map(([, r]) => routeKeyOf(r.Properties)).sort()).toEqual([...userKeys].sort());
    for (const [, route] of guarded) {
      expect(route.Properties.AuthorizerId).toEqual({ Ref: authorizerId });
    }
    const others = routes.filter(([, r]) => !userKeys.has(routeKeyOf(r.Properties)));
    expect(others.length).toBe(
      manifest.routes.length + (manifest.publicRoutes ?? []).length + 2 /* health and $default */,
    );
    for (const [, route] of others) {
      expect(route.Properties.AuthorizationType ?? 'NONE', routeKeyOf(route.Properties)).toBe('NONE');
      expect(route.Properties.AuthorizerId).toBeUndefined();
    }
  });

  it('gives each user route its own function, like every route', () => {
    for (const route of sampleUserRoutes) {
      expect(stateless.httpApi.functionsByRouteKey.get(`${route.method} ${route.path}`)).toBeDefined();
    }
  });
});
