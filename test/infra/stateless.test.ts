import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { AssetStaging } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import type { RouteDef } from '../../functions/http/routes.ts';
import { ENV } from '../../functions/shared/env.ts';
import { ESM_REQUIRE_BANNER } from '../../lib/constructs/handler-function.ts';
import { DEFAULT_ROUTE_KEY, type RouteManifest } from '../../lib/constructs/http-api.ts';
import {
  actionsOf,
  buildTestApp,
  logicalIdOf,
  manifest,
  type PolicyStatementJson,
  roleStatements,
  workerManifest,
} from './fixture.ts';

const built = buildTestApp();
const { stateless, stateful } = built;
const template = Template.fromStack(stateless);
const fns = stateless.httpApi.functionsByRouteKey;
const routeKey = (route: RouteDef) => `${route.method} ${route.path}`;

const statementsFor = (key: string, t = template, s = stateless): PolicyStatementJson[] => {
  const fn = s.httpApi.functionsByRouteKey.get(key);
  if (!fn) throw new Error(`no function for ${key}`);
  return roleStatements(s, t, fn);
};
const allActions = (statements: PolicyStatementJson[]) => statements.flatMap(actionsOf);

describe('functions', () => {
  it('has one function per manifest route plus the fallback and health functions, and one per worker', () => {
    const entries = new Set([
      manifest.fallbackEntry,
      manifest.healthRoute.entry,
      ...(manifest.publicRoutes ?? []).map((r) => r.entry),
      ...manifest.routes.map((r) => r.entry),
      ...manifest.userRoutes.map((r) => r.entry),
    ]);
    template.resourceCountIs('AWS::Lambda::Function', entries.size + workerManifest.workers.length);
    expect([...fns.keys()].sort()).toEqual(
      [
        DEFAULT_ROUTE_KEY,
        routeKey(manifest.healthRoute),
        ...(manifest.publicRoutes ?? []).map(routeKey),
        ...manifest.routes.map(routeKey),
        ...manifest.userRoutes.map(routeKey),
      ].sort(),
    );
  });

  it('runs every function on nodejs22.x arm64 with source maps, tracing and every variable of the env module', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    expect(functions.length).toBeGreaterThan(2);
    // HTTP functions answer within 10 s; each worker runs with its manifest timeout.
    const workerTimeouts = new Map(
      stateless.workers.workers.map(({ def, fn }) => [logicalIdOf(stateless, fn), def.timeoutSeconds]),
    );
    const timeoutOf = (id: string) => workerTimeouts.get(id) ?? 10;
    const expectedNames = [
      ENV.runtime,
      ENV.tableName,
      ENV.mediaBucket,
      ENV.publishQueueUrl,
      ENV.eventQueueUrl,
      ENV.deliveryQueueUrl,
      ENV.metricsQueueUrl,
      ENV.schedulerGroup,
      ENV.schedulerRoleArn,
      ENV.schedulerTargetArn,
      ENV.tokenKmsKeyId,
      ENV.rateLimitPerMinute,
    ];
    for (const [id, fn] of Object.entries(template.findResources('AWS::Lambda::Function'))) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        MemorySize: 512,
        Timeout: timeoutOf(id),
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogGroup: { Ref: expect.any(String) } },
      });
      const vars = fn.Properties.Environment.Variables;
      expect(Object.keys(vars)).toEqual(expect.arrayContaining([...expectedNames, 'NODE_OPTIONS']));
      expect(vars).toMatchObject({
        [ENV.runtime]: 'aws',
        [ENV.rateLimitPerMinute]: '300',
        [ENV.schedulerGroup]: 'herald-dev',
        NODE_OPTIONS: '--enable-source-maps',
      });
      // SDK v3 reuses connections by itself; the v2-era switch would only be noise.
      expect(vars.AWS_NODEJS_CONNECTION_REUSE_ENABLED).toBeUndefined();
    }
    // The functions share one log group (test/infra/stack-size.test.ts); the API's access logs have their own.
    const logGroups = Object.values(template.findResources('AWS::Logs::LogGroup'));
    expect(logGroups.length).toBe(2);
    for (const group of logGroups) expect(group.Properties.RetentionInDays).toBeGreaterThan(0);
  });

  it('bundles with local esbuild into a minified ESM module whose CommonJS require works, with a source map', async () => {
    // A stub that needs the banner: `require` does not exist in ESM without it.
    const stub =
      "export const handler = async () => ({ statusCode: 200, body: require('node:path').posix.join('a', 'b') });\n";
    const bundled = buildTestApp({ manifest: { ...manifest, routes: [] }, bundleStub: stub });
    bundled.app.synth();
    const health = bundled.stateless.httpApi.functionsByRouteKey.get(routeKey(manifest.healthRoute));
    const staging = health?.node.findAll().find((c): c is AssetStaging => c instanceof AssetStaging);
    const assetDir = staging?.absoluteStagedPath as string;
    expect(fs.readdirSync(assetDir).sort()).toEqual(['index.mjs', 'index.mjs.map']);
    const code = fs.readFileSync(path.join(assetDir, 'index.mjs'), 'utf8');
    expect(code.startsWith(ESM_REQUIRE_BANNER)).toBe(true);
    expect(code.split('\n').length).toBeLessThan(5);
    const module = (await import(pathToFileURL(path.join(assetDir, 'index.mjs')).href)) as {
      handler: () => Promise<{ body: string }>;
    };
    await expect(module.handler()).resolves.toMatchObject({ body: 'a/b' });
  });

  it('gives every HTTP function the API’s own URL (API_URL), the OAuth callback’s base, and PUBLIC_BASE_URL only from the publicBaseUrl context', () => {
    const apiId = logicalIdOf(stateless, stateless.httpApi.api);
    for (const fn of new Set(fns.values())) {
      const vars = template.toJSON().Resources[logicalIdOf(stateless, fn)].Properties.Environment.Variables;
      expect(vars[ENV.apiUrl], fn.node.path).toEqual({ 'Fn::GetAtt': [apiId, 'ApiEndpoint'] });
      expect(vars[ENV.publicBaseUrl], fn.node.path).toBeUndefined();
    }
    const custom = buildTestApp({ context: { publicBaseUrl: 'https://api.example.com/' } });
    const vars = Object.values(
      Template.fromStack(custom.stateless).findResources('AWS::Lambda::Function'),
    ).map((fn) => fn.Properties.Environment.Variables[ENV.publicBaseUrl]);
    expect(new Set(vars)).toEqual(new Set(['https://api.example.com']));
    for (const nonsense of ['http://api.example.com', 'https://api.example.com/v1', 'api.example.com']) {
      expect(() => buildTestApp({ context: { publicBaseUrl: nonsense } }), nonsense).toThrow(/publicBaseUrl/);
    }
  });

  it('sets RATE_LIMIT_PER_MINUTE from the rateLimitPerMinute context and rejects nonsense', () => {
    const custom = buildTestApp({ context: { rateLimitPerMinute: '120' } });
    const vars = Object.values(
      Template.fromStack(custom.stateless).findResources('AWS::Lambda::Function'),
    ).map((fn) => fn.Properties.Environment.Variables[ENV.rateLimitPerMinute]);
    expect(new Set(vars)).toEqual(new Set(['120']));
    expect(() => buildTestApp({ context: { rateLimitPerMinute: 'lots' } })).toThrow(/rateLimitPerMinute/);
  });
});

describe('HTTP API', () => {
  it('routes every manifest entry, /health and $default to the function built for it', () => {
    const routes = template.findResources('AWS::ApiGatewayV2::Route');
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
    const keys = Object.values(routes).map((route) => route.Properties.RouteKey);
    expect(keys.sort()).toEqual([...fns.keys()].sort());
    expect(keys).toEqual(expect.arrayContaining(['GET /v1/platforms', 'GET /health', '$default']));

    for (const route of Object.values(routes)) {
      const key: string = route.Properties.RouteKey;
      const target = JSON.stringify(route.Properties.Target);
      const integrationId = Object.keys(integrations).find((id) => target.includes(`"${id}"`));
      const fn = fns.get(key);
      if (!integrationId || !fn) throw new Error(`${key}: no integration or no function`);
      const integration = integrations[integrationId]?.Properties;
      expect(integration.IntegrationUri, key).toEqual({ 'Fn::GetAtt': [logicalIdOf(stateless, fn), 'Arn'] });
      expect(integration.PayloadFormatVersion).toBe('2.0');
    }
    // The fallback serves only $default.
    expect(fns.get(DEFAULT_ROUTE_KEY)?.node.id).toBe('Fallback');
  });

  it('serves the auto-deployed $default stage with JSON access logs and throttling', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
      AccessLogSettings: {
        DestinationArn: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] },
        Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"'),
      },
    });
    const format = JSON.parse(
      Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0]?.Properties.AccessLogSettings
        .Format,
    );
    expect(format).toMatchObject({ status: '$context.status', routeKey: '$context.routeKey' });
  });

  it('gives each key-less route a throttle of its own, below the stage default, and none to the routes with a key', () => {
    const stage = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0];
    const keyless = [
      DEFAULT_ROUTE_KEY,
      'GET /health',
      'GET /v1/channels/callback',
      'GET /v1/openapi.json',
      'GET /docs',
      'GET /docs/{asset}',
    ];
    expect(Object.keys(stage?.Properties.RouteSettings ?? {}).sort()).toEqual([...keyless].sort());
    for (const key of keyless) {
      expect(stage?.Properties.RouteSettings[key], key).toEqual({
        ThrottlingRateLimit: 10,
        ThrottlingBurstLimit: 20,
      });
    }
    // A route's settings name a route of the API: the stage is made after every route.
    const routeIds = Object.keys(template.findResources('AWS::ApiGatewayV2::Route'));
    expect([stage?.DependsOn ?? []].flat()).toEqual(expect.arrayContaining(routeIds));
    // Context sets them.
    const custom = Template.fromStack(
      buildTestApp({ context: { keylessRateLimit: '3', keylessBurstLimit: '6' } }).stateless,
    );
    const settings = Object.values(custom.findResources('AWS::ApiGatewayV2::Stage'))[0]?.Properties
      .RouteSettings;
    expect(settings['GET /v1/channels/callback']).toEqual({
      ThrottlingRateLimit: 3,
      ThrottlingBurstLimit: 6,
    });
    expect(() => buildTestApp({ context: { keylessRateLimit: '0' } })).toThrow(/keylessRateLimit/);
  });
});

describe('least privilege', () => {
  it('gives the health function no access to the table, bucket, queues, key or scheduler', () => {
    const actions = allActions(statementsFor(routeKey(manifest.healthRoute)));
    expect(actions.filter((a) => !a.startsWith('xray:'))).toEqual([]);
  });

  it('lets the fallback update key items and address rate windows (it rate-limits unknown routes too), nothing more', () => {
    const statements = statementsFor(DEFAULT_ROUTE_KEY).filter(
      (s) => !actionsOf(s).some((a) => a.startsWith('xray:')),
    );
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: 'dynamodb:UpdateItem',
        Resource: { 'Fn::ImportValue': expect.stringContaining('Table') },
        Condition: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APIKEY#*', 'RATE#ip:*'] },
          Null: { 'dynamodb:LeadingKeys': 'false' },
        },
      },
    ]);
  });

  it('gives the key-less functions (the OAuth callback, $default) the table only through partition-key conditions', () => {
    const keyless = [DEFAULT_ROUTE_KEY, 'GET /v1/channels/callback'];
    for (const key of keyless) {
      const table = statementsFor(key).filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
      expect(table.length, key).toBeGreaterThan(0);
      for (const statement of table) {
        expect(statement.Condition, key).toMatchObject({
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': expect.any(Array) },
          Null: { 'dynamodb:LeadingKeys': 'false' },
        });
        // No scan, no index, no batch, no delete.
        expect(JSON.stringify(statement.Resource), key).not.toContain('/index/');
        for (const action of actionsOf(statement))
          expect(
            ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
            key,
          ).toContain(action);
      }
    }
    const callbackPartitions = statementsFor('GET /v1/channels/callback')
      .flatMap(
        (s) =>
          (s.Condition?.['ForAllValues:StringLike'] as Record<string, string[]> | undefined)?.[
            'dynamodb:LeadingKeys'
          ] ?? [],
      )
      .sort();
    // Its connect state and the request counters: it saves no channel (the key holder completes it).
    expect([...new Set(callbackPartitions)]).toEqual(['APIKEY#*', 'CONNECT#*', 'RATE#ip:*']);
  });

  it('conditions every use of the token key on one kind of encryption context (channel, connect state or webhook)', () => {
    const everyFunction = [
      ...[...fns.entries()].map(([key, fn]) => ({ key, fn })),
      ...stateless.workers.workers.map(({ def, fn }) => ({ key: def.entry, fn })),
    ];
    const contexts = new Map<string, string[]>();
    for (const { key, fn } of everyFunction) {
      for (const statement of roleStatements(stateless, template, fn)) {
        const kms = actionsOf(statement).filter((a) => a.startsWith('kms:'));
        if (kms.length === 0) continue;
        // cdk.json's @aws-cdk/aws-iam:minimizePolicies merges actions with the same condition.
        expect(statement.Condition, key).toEqual({
          StringLike: { 'kms:EncryptionContext:channelId': expect.stringMatching(/^(ch|connect|wh)_\*$/) },
        });
        const like = statement.Condition?.StringLike as Record<string, string> | undefined;
        const context = like?.['kms:EncryptionContext:channelId'];
        contexts.set(key, [...(contexts.get(key) ?? []), ...kms.map((action) => `${action} ${context}`)]);
      }
    }
    expect(contexts.get('functions/workers/publish.ts')?.sort()).toEqual([
      'kms:Decrypt ch_*',
      'kms:Encrypt ch_*',
    ]);
    expect(contexts.get('functions/workers/webhook-delivery.ts')).toEqual(['kms:Decrypt wh_*']);
    expect(contexts.get('POST /v1/webhooks')?.sort()).toEqual(['kms:Decrypt wh_*', 'kms:Encrypt wh_*']);
    expect(contexts.get('GET /v1/channels/callback')?.sort()).toEqual(['kms:Encrypt connect_*']);
    expect(contexts.get('POST /v1/channels/connect/complete')?.sort()).toEqual([
      'kms:Decrypt connect_*',
      'kms:Encrypt ch_*',
    ]);
    expect(contexts.get('POST /v1/channels/connect/{state}/targets')?.sort()).toEqual([
      'kms:Decrypt connect_*',
      'kms:Encrypt ch_*',
    ]);
  });

  it('allows a wildcard resource to no function, route or worker, except for the X-Ray actions tracing needs', () => {
    const everyFunction = [
      ...[...fns.entries()].map(([key, fn]) => ({ key, fn })),
      ...stateless.workers.workers.map(({ def, fn }) => ({ key: def.entry, fn })),
    ];
    expect(everyFunction.length).toBe(fns.size + workerManifest.workers.length);
    for (const { key, fn } of everyFunction) {
      const statements = roleStatements(stateless, template, fn);
      const wildcard = statements.filter((s) => JSON.stringify(s.Resource) === '"*"');
      expect(wildcard.flatMap(actionsOf).sort(), key).toEqual([
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ]);
    }
  });

  it('grants table routes item access on the table and its two named indexes, never index/*', () => {
    const route = manifest.routes.find((r) => r.grants.includes('table:read'));
    expect(route).toBeDefined();
    const statements = statementsFor(routeKey(route as RouteDef));
    const read = statements.find((s) => actionsOf(s).includes('dynamodb:Query'));
    expect(JSON.stringify(read?.Resource)).toMatch(/\/index\/GSI1"/);
    expect(JSON.stringify(read?.Resource)).toMatch(/\/index\/GSI2"/);
    expect(JSON.stringify(statements)).not.toContain('index/*');
  });

  it('gives no function of the manifest a scheduler or PassRole permission unless it lists scheduler:manage', () => {
    for (const route of manifest.routes.filter((r) => !r.grants.includes('scheduler:manage'))) {
      const actions = allActions(statementsFor(routeKey(route)));
      expect(
        actions.filter((a) => a.startsWith('scheduler:') || a === 'iam:PassRole'),
        routeKey(route),
      ).toEqual([]);
    }
  });

  describe('maps each grant of a manifest to exactly its permission', () => {
    const route = (
      method: RouteDef['method'],
      path: string,
      entry: string,
      grants: RouteDef['grants'],
    ): RouteDef => ({
      method,
      path,
      entry,
      grants,
    });
    const custom: RouteManifest = {
      ...manifest,
      routes: [
        route('POST', '/v1/posts', 'functions/http/posts/create.ts', [
          'scheduler:manage',
          'publishQueue:send',
        ]),
        route('POST', '/v1/channels', 'functions/http/channels/connect.ts', ['channelToken:encrypt']),
        route('POST', '/v1/secrets', 'functions/http/secrets.ts', ['webhookSecret:decrypt']),
        route('POST', '/v1/media', 'functions/http/media/upload.ts', ['bucket:write']),
        route('GET', '/v1/media/{id}', 'functions/http/media/get.ts', ['bucket:read']),
        route('GET', '/v1/plain', 'functions/http/plain.ts', []),
      ],
    };
    const other = buildTestApp({ manifest: custom });
    const t = Template.fromStack(other.stateless);
    const of = (key: string) => statementsFor(key, t, other.stateless);
    const groupArnPattern = /:schedule\/herald-dev\/\*$/;

    it('scheduler:manage: the four schedule actions on our group and PassRole on the scheduler role only', () => {
      const statements = of('POST /v1/posts');
      const schedule = statements.find((s) => actionsOf(s).some((a) => a.startsWith('scheduler:')));
      if (!schedule) throw new Error('no scheduler statement');
      expect(actionsOf(schedule).sort()).toEqual([
        'scheduler:CreateSchedule',
        'scheduler:DeleteSchedule',
        'scheduler:GetSchedule',
        'scheduler:UpdateSchedule',
      ]);
      const [, parts] = (schedule.Resource as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
      expect(parts.filter((p) => typeof p === 'string').join('')).toMatch(groupArnPattern);
      const passRole = statements.find((s) => actionsOf(s).includes('iam:PassRole'));
      expect(passRole).toMatchObject({
        Resource: { 'Fn::ImportValue': expect.stringContaining('SchedulingRole') },
        Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      });
      expect(allActions(statements)).toEqual(expect.arrayContaining(['sqs:SendMessage']));
      expect(allActions(statements).filter((a) => a.startsWith('dynamodb:'))).toEqual([]);
    });

    it('channelToken:encrypt: kms:Encrypt and nothing else on the key, only for channel encryption contexts', () => {
      const statements = of('POST /v1/channels').filter(
        (s) => !actionsOf(s).some((a) => a.startsWith('xray:')),
      );
      expect(statements).toHaveLength(1);
      expect(actionsOf(statements[0] as PolicyStatementJson)).toEqual(['kms:Encrypt']);
      expect(statements[0]?.Condition).toEqual({ StringLike: { 'kms:EncryptionContext:channelId': 'ch_*' } });
    });

    it('webhookSecret:decrypt: kms:Decrypt on the key, only for webhook encryption contexts', () => {
      const statements = of('POST /v1/secrets').filter(
        (s) => !actionsOf(s).some((a) => a.startsWith('xray:')),
      );
      expect(statements).toHaveLength(1);
      expect(actionsOf(statements[0] as PolicyStatementJson)).toEqual(['kms:Decrypt']);
      expect(statements[0]?.Condition).toEqual({
        StringLike: { 'kms:EncryptionContext:channelId': 'wh_*' },
      });
    });

    it('bucket grants: object actions only, no listing and no bucket-level access', () => {
      expect(
        allActions(of('POST /v1/media'))
          .filter((a) => a.startsWith('s3:'))
          .sort(),
      ).toEqual(['s3:AbortMultipartUpload', 's3:DeleteObject', 's3:PutObject']);
      expect(allActions(of('GET /v1/media/{id}')).filter((a) => !a.startsWith('xray:'))).toEqual([
        's3:GetObject',
      ]);
    });

    it('no grant: nothing but tracing', () => {
      expect(allActions(of('GET /v1/plain')).filter((a) => !a.startsWith('xray:'))).toEqual([]);
    });
  });
});

describe('alarms', () => {
  it('alarms on a single message in any dead-letter queue', () => {
    for (const { deadLetterQueue } of Object.values(stateful.queues)) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [
          {
            Name: 'QueueName',
            Value: { 'Fn::ImportValue': Match.stringLikeRegexp(logicalIdOf(stateful, deadLetterQueue)) },
          },
        ],
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [{ Ref: logicalIdOf(stateless, stateless.alarms.topic) }],
      });
    }
  });

  it('alarms when more than 1% of at least 20 requests in 5 minutes answer 5xx', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Threshold: 1,
      ComparisonOperator: 'GreaterThanThreshold',
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'IF(requests >= 20, 100 * errors / requests, 0)' }),
        Match.objectLike({
          Id: 'errors',
          MetricStat: Match.objectLike({ Metric: Match.objectLike({ MetricName: '5xx' }), Period: 300 }),
        }),
        Match.objectLike({
          Id: 'requests',
          MetricStat: Match.objectLike({ Metric: Match.objectLike({ MetricName: 'Count' }) }),
        }),
      ]),
    });
    // Four dead-letter queues, the API, and one per worker.
    template.resourceCountIs('AWS::CloudWatch::Alarm', 5 + workerManifest.workers.length);
  });

  it('notifies an encrypted, TLS-only topic, with an email subscription only when alarmEmail is set', () => {
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    const withEmail = buildTestApp({ context: { alarmEmail: 'ops@example.com' } });
    Template.fromStack(withEmail.stateless).hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });
});
