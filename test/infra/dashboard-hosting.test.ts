/**
 * The people's dashboard on AWS: a private bucket read by CloudFront through origin access control,
 * `/v1/*` sent on to the HTTP API at the same origin, the shared security headers, and the built
 * files deployed under `dashboard/` beside a `config.json` naming the user pool.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { dashboardSecurityHeaders } from '../../functions/shared/dashboard-headers.ts';
import { responseHeadersOf } from '../../lib/constructs/dashboard-hosting.ts';
import { STATELESS_OUTPUTS } from '../../lib/stack-outputs.ts';
import { buildTestApp, builtDashboardFixture, logicalIdOf, nagFindings } from './fixture.ts';

type Resource = { Type: string; Properties: Record<string, unknown> };

const built = buildTestApp({ builtDashboard: builtDashboardFixture(), nag: true });
const assembly = built.app.synth();
const { stateless, stateful } = built;
const template = Template.fromStack(stateless);
const resources = template.toJSON().Resources as Record<string, Resource>;
const only = (type: string): [string, Resource] => {
  const found = Object.entries(resources).filter(([, r]) => r.Type === type);
  expect(found, type).toHaveLength(1);
  return found[0] as [string, Resource];
};
const hosting = stateless.dashboardHosting;
const bucketId = logicalIdOf(stateless, hosting.bucket);
const [distributionId, distribution] = only('AWS::CloudFront::Distribution');
const config = distribution.Properties.DistributionConfig as {
  DefaultRootObject: string;
  Origins: {
    Id: string;
    DomainName: unknown;
    OriginAccessControlId?: unknown;
    CustomOriginConfig?: unknown;
  }[];
  DefaultCacheBehavior: Record<string, unknown>;
  CacheBehaviors: Record<string, unknown>[];
  ViewerCertificate?: unknown;
};

// CloudFront's managed policies, by their documented ids.
const CACHING_OPTIMIZED = '658327ea-f89d-4fab-a63d-7e88639e58f6';
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

describe('the dashboard bucket', () => {
  it('is encrypted, blocks all public access, refuses plain HTTP and lets only this distribution read', () => {
    expect(resources[bucketId]?.Properties).toMatchObject({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    });
    const [, policy] = only('AWS::S3::BucketPolicy');
    const statements = (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] })
      .Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 's3:*',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    const allows = statements.filter((s) => s.Effect === 'Allow');
    expect(allows).toEqual([
      {
        Effect: 'Allow',
        Action: 's3:GetObject',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] },
        Condition: {
          StringEquals: {
            'AWS:SourceArn': {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':cloudfront::',
                  { Ref: 'AWS::AccountId' },
                  ':distribution/',
                  { Ref: distributionId },
                ],
              ],
            },
          },
        },
      },
    ]);
  });
});

describe('the distribution', () => {
  const s3Origin = config.Origins.find((o) => JSON.stringify(o.DomainName).includes(bucketId));
  const apiOrigin = config.Origins.find((o) => o !== s3Origin);

  it('serves the files from the bucket through origin access control, over HTTPS, with dashboard/index.html at /', () => {
    expect(config.Origins).toHaveLength(2);
    const [oacId] = only('AWS::CloudFront::OriginAccessControl');
    expect(s3Origin?.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [oacId, 'Id'] });
    expect(config.DefaultRootObject).toBe('dashboard/index.html');
    const [policyId] = only('AWS::CloudFront::ResponseHeadersPolicy');
    expect(config.DefaultCacheBehavior).toMatchObject({
      TargetOriginId: (s3Origin as { Id: string }).Id,
      ViewerProtocolPolicy: 'redirect-to-https',
      AllowedMethods: ['GET', 'HEAD'],
      CachePolicyId: CACHING_OPTIMIZED,
      ResponseHeadersPolicyId: { Ref: policyId },
    });
  });

  it('sends /v1/* to the HTTP API: nothing cached, every viewer header but Host, all methods, HTTPS end to end', () => {
    expect(apiOrigin).toMatchObject({
      DomainName: {
        'Fn::Join': [
          '',
          [
            { Ref: logicalIdOf(stateless, stateless.httpApi.api) },
            '.execute-api.',
            { Ref: 'AWS::Region' },
            '.',
            { Ref: 'AWS::URLSuffix' },
          ],
        ],
      },
      CustomOriginConfig: { OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] },
    });
    expect(config.CacheBehaviors).toEqual([
      expect.objectContaining({
        PathPattern: '/v1/*',
        TargetOriginId: (apiOrigin as { Id: string }).Id,
        ViewerProtocolPolicy: 'https-only',
        AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
        CachePolicyId: CACHING_DISABLED,
        OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
      }),
    ]);
    // The API's answers carry their own headers: the dashboard's CSP is for the files only.
    expect(config.CacheBehaviors[0]?.ResponseHeadersPolicyId).toBeUndefined();
  });

  it('answers /dashboard/ with its index.html and redirects /dashboard there (a CloudFront function, run here)', () => {
    const [fnId, fn] = only('AWS::CloudFront::Function');
    expect(config.DefaultCacheBehavior.FunctionAssociations).toEqual([
      { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [fnId, 'FunctionARN'] } },
    ]);
    expect((fn.Properties.FunctionConfig as { Runtime: string }).Runtime).toBe('cloudfront-js-2.0');
    const handler = new Function(`${fn.Properties.FunctionCode as string}\nreturn handler;`)() as (event: {
      request: { uri: string; querystring?: unknown };
    }) => { uri?: string; statusCode?: number; headers?: { location: { value: string } } };
    const at = (uri: string) => handler({ request: { uri, querystring: {} } });
    expect(at('/dashboard/').uri).toBe('/dashboard/index.html');
    expect(at('/dashboard/assets/index-abc123.js').uri).toBe('/dashboard/assets/index-abc123.js');
    expect(at('/dashboard/config.json').uri).toBe('/dashboard/config.json');
    const redirect = at('/dashboard');
    expect(redirect.statusCode).toBe(301);
    expect(redirect.headers?.location.value).toBe('/dashboard/');
  });

  it('sends every security header of functions/shared/dashboard-headers.ts, the CSP naming the regional Cognito endpoint', () => {
    const [, policy] = only('AWS::CloudFront::ResponseHeadersPolicy');
    const settings = (policy.Properties.ResponseHeadersPolicyConfig ?? {}) as {
      SecurityHeadersConfig: Record<string, Record<string, unknown>>;
      CustomHeadersConfig: { Items: { Header: string; Value: string; Override: boolean }[] };
    };
    const security = settings.SecurityHeadersConfig;
    // The CSP with the region's token, read back as the shared definition writes it for that region.
    const csp = security.ContentSecurityPolicy?.ContentSecurityPolicy as { 'Fn::Join': [string, unknown[]] };
    const cspFor = (region: string) =>
      csp['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : region)).join('');
    const expected = dashboardSecurityHeaders({
      cognitoOrigin: 'https://cognito-idp.eu-west-1.amazonaws.com',
    });
    expect(cspFor('eu-west-1')).toBe(expected['Content-Security-Policy']);
    expect(security.StrictTransportSecurity).toEqual({
      AccessControlMaxAgeSec: 63072000,
      IncludeSubdomains: true,
      Preload: false,
      Override: true,
    });
    expect(expected['Strict-Transport-Security']).toBe('max-age=63072000; includeSubDomains');
    expect(security.ContentTypeOptions).toEqual({ Override: true });
    expect(security.FrameOptions).toEqual({ FrameOption: expected['X-Frame-Options'], Override: true });
    expect(security.ReferrerPolicy).toEqual({ ReferrerPolicy: expected['Referrer-Policy'], Override: true });
    const named = new Set(['Content-Security-Policy', 'Strict-Transport-Security', 'X-Content-Type-Options']);
    for (const name of ['X-Frame-Options', 'Referrer-Policy']) named.add(name);
    const rest = Object.entries(expected).filter(([name]) => !named.has(name));
    expect(rest.length).toBeGreaterThan(0);
    expect(settings.CustomHeadersConfig.Items).toEqual(
      rest.map(([Header, Value]) => ({ Header, Value, Override: true })),
    );
  });

  it('refuses a header value CloudFront cannot send as the local server would', () => {
    expect(() => responseHeadersOf({ 'Strict-Transport-Security': 'max-age=abc' })).toThrow(/cannot send/);
    expect(() => responseHeadersOf({ 'X-Frame-Options': 'ALLOW-FROM https://x' })).toThrow(/cannot send/);
    expect(() => responseHeadersOf({ 'Referrer-Policy': 'sometimes' })).toThrow(/cannot send/);
    expect(() => responseHeadersOf({ 'X-Content-Type-Options': 'sniff' })).toThrow(/cannot send/);
  });

  it("uses the cheapest price class and, with no custom domain, CloudFront's default certificate", () => {
    expect(distribution.Properties.DistributionConfig).toMatchObject({
      PriceClass: 'PriceClass_100',
      HttpVersion: 'http2and3',
    });
    // No custom domain: CloudFront's default certificate (its own TLS policy), acknowledged as AwsSolutions-CFR4.
    expect(config.ViewerCertificate).toBeUndefined();
  });

  it('is the DashboardUrl output: https://<distribution>/dashboard/', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown; Description: string }>;
    expect(outputs.DashboardUrl).toEqual({
      Description: STATELESS_OUTPUTS.DashboardUrl,
      Value: {
        'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/dashboard/']],
      },
    });
  });
});

describe('the dashboard files', () => {
  const [, deployment] = only('Custom::CDKBucketDeployment');
  const props = deployment.Properties as {
    SourceObjectKeys: string[];
    SourceMarkers: Record<string, unknown>[];
    DestinationBucketName: unknown;
    DestinationBucketKeyPrefix: string;
    Prune: boolean;
    RetainOnDelete: boolean;
    SystemMetadata: Record<string, string>;
  };

  it('are deployed under dashboard/, pruned of old files, removed with the stack, revalidated on each load', () => {
    expect(props).toMatchObject({
      DestinationBucketName: { Ref: bucketId },
      DestinationBucketKeyPrefix: 'dashboard/',
      Prune: true,
      RetainOnDelete: false,
      SystemMetadata: { 'cache-control': 'no-cache' },
    });
    expect(props.SourceObjectKeys).toHaveLength(2);
  });

  it('are the built dashboard and a config.json of the contract shape with the pool, its client and the region', () => {
    // The deployment's sources, found by their object keys in the stack's asset manifest.
    const manifest = JSON.parse(
      fs.readFileSync(path.join(assembly.directory, `${stateless.stackName}.assets.json`), 'utf8'),
    ) as {
      files: Record<
        string,
        { source: { path: string }; destinations: Record<string, { objectKey: string }> }
      >;
    };
    const dirs = Object.values(manifest.files)
      .filter((file) =>
        Object.values(file.destinations).some((d) => props.SourceObjectKeys.includes(d.objectKey)),
      )
      .map((file) => path.join(assembly.directory, file.source.path));
    expect(dirs).toHaveLength(2);
    const files = dirs.flatMap((dir) => fs.readdirSync(dir, { recursive: true }).map(String)).sort();
    expect(files).toEqual(['assets', 'assets/index-abc123.js', 'config.json', 'index.html']);
    const configDir = dirs.find((dir) => fs.existsSync(path.join(dir, 'config.json'))) as string;
    const text = fs.readFileSync(path.join(configDir, 'config.json'), 'utf8');
    // Tokens are markers in the file, filled in by the deployment: name each by what it stands for.
    const markers = props.SourceMarkers.find((m) => Object.keys(m).length > 0) as Record<string, unknown>;
    const named = Object.entries(markers).reduce((json, [marker, value]) => {
      const v = JSON.stringify(value);
      const name = v.includes('AWS::Region')
        ? 'REGION'
        : v.includes(logicalIdOf(stateful, stateful.users.client))
          ? 'CLIENT'
          : v.includes(logicalIdOf(stateful, stateful.users.userPool))
            ? 'POOL'
            : 'UNKNOWN';
      return json.replaceAll(marker, name);
    }, text);
    expect(JSON.parse(named)).toEqual({
      apiBase: '',
      cognito: {
        endpoint: 'https://cognito-idp.REGION.amazonaws.com',
        region: 'REGION',
        userPoolId: 'POOL',
        clientId: 'CLIENT',
      },
    });
  });

  it('leave cdk-nag clean, every finding of the deployment function acknowledged with a reason', () => {
    expect(nagFindings(assembly).map((f) => `${f.rule} at ${f.paths.join(', ')}`)).toEqual([]);
  });

  it('are not deployed, and synth says so, while the repository has no dashboard sources', () => {
    const bare = buildTestApp();
    const info = bare.stateless.dashboardHosting.node.metadata.filter((m) => m.type === 'aws:cdk:info');
    expect(bare.stateless.dashboardHosting.deployment).toBeUndefined();
    expect(info.map((m) => String(m.data))).toEqual([expect.stringContaining('dashboard/vite.config.ts')]);
    const bareResources = Template.fromStack(bare.stateless).toJSON().Resources as Record<string, Resource>;
    expect(Object.values(bareResources).filter((r) => r.Type === 'Custom::CDKBucketDeployment')).toEqual([]);
    expect(
      Object.values(bareResources).filter((r) => r.Type === 'AWS::CloudFront::Distribution'),
    ).toHaveLength(1);
  });
});
