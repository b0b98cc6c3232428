import path from 'node:path';
import {
  Annotations,
  AssetHashType,
  Aws,
  type CfnElement,
  DockerImage,
  Duration,
  RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  type ResponseHeadersPolicyProps,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, type ISource, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { dashboardSecurityHeaders } from '../../functions/shared/dashboard-headers.ts';
import { buildDashboard, DASHBOARD_VITE_CONFIG, hasDashboardSources } from '../bundling/dashboard.ts';
import { functionLogGroup } from './handler-function.ts';
import { cognitoEndpoint } from './user-pool.ts';

/** Where the dashboard's files live, in the bucket and in its URL (Vite's `base`). */
export const DASHBOARD_PREFIX = 'dashboard/';

/** `/dashboard/config.json`: what the dashboard reads first (the API base and the Cognito pool it signs in to). */
export interface DashboardConfig {
  readonly apiBase: string;
  readonly cognito: {
    readonly endpoint: string;
    readonly region: string;
    readonly userPoolId: string;
    readonly clientId: string;
  };
}

export interface DashboardHostingProps {
  readonly api: IHttpApi;
  readonly userPoolId: string;
  readonly userPoolClientId: string;
  /** Repository root: the dashboard is built from its `dashboard/` sources at synth. */
  readonly sourceRoot: string;
  /** A dashboard already built (a folder with index.html): deployed as is instead of building one. */
  readonly builtDashboard?: string;
}

// The CSP is built for a region CloudFormation fills in: a valid host name stands in for it while
// the shared definition parses the origin, then is swapped for the region's token.
const REGION_STAND_IN = 'region-stand-in';

/**
 * CloudFront's form of the dashboard's security headers (functions/shared/dashboard-headers.ts):
 * the five it knows as security headers go into their own settings, the others are custom headers.
 * A header whose value CloudFront cannot express throws, so the two runtimes never differ silently.
 */
export const responseHeadersOf = (
  headers: Record<string, string>,
): Pick<ResponseHeadersPolicyProps, 'securityHeadersBehavior' | 'customHeadersBehavior'> => {
  const security: NonNullable<ResponseHeadersPolicyProps['securityHeadersBehavior']> &
    Record<string, unknown> = {};
  const custom: { header: string; value: string; override: boolean }[] = [];
  for (const [name, value] of Object.entries(headers)) {
    switch (name.toLowerCase()) {
      case 'content-security-policy':
        Object.assign(security, { contentSecurityPolicy: { contentSecurityPolicy: value, override: true } });
        break;
      case 'strict-transport-security': {
        const match = /^max-age=(\d+)((?:; ?(?:includeSubDomains|preload))*)$/i.exec(value);
        if (!match) throw new Error(`CloudFront cannot send Strict-Transport-Security: ${value}`);
        const flags = (match[2] ?? '').toLowerCase();
        Object.assign(security, {
          strictTransportSecurity: {
            accessControlMaxAge: Duration.seconds(Number(match[1])),
            includeSubdomains: flags.includes('includesubdomains'),
            preload: flags.includes('preload'),
            override: true,
          },
        });
        break;
      }
      case 'x-content-type-options':
        if (value.toLowerCase() !== 'nosniff')
          throw new Error(`CloudFront cannot send X-Content-Type-Options: ${value}`);
        Object.assign(security, { contentTypeOptions: { override: true } });
        break;
      case 'x-frame-options': {
        const option = { deny: HeadersFrameOption.DENY, sameorigin: HeadersFrameOption.SAMEORIGIN }[
          value.toLowerCase() as 'deny' | 'sameorigin'
        ];
        if (!option) throw new Error(`CloudFront cannot send X-Frame-Options: ${value}`);
        Object.assign(security, { frameOptions: { frameOption: option, override: true } });
        break;
      }
      case 'referrer-policy': {
        const policy = Object.values(HeadersReferrerPolicy).find((p) => p === value.toLowerCase());
        if (!policy) throw new Error(`CloudFront cannot send Referrer-Policy: ${value}`);
        Object.assign(security, { referrerPolicy: { referrerPolicy: policy, override: true } });
        break;
      }
      case 'x-xss-protection':
        throw new Error('X-XSS-Protection is not sent by the dashboard (the CSP replaces it)');
      default:
        custom.push({ header: name, value, override: true });
    }
  }
  return {
    securityHeadersBehavior: security,
    ...(custom.length > 0 ? { customHeadersBehavior: { customHeaders: custom } } : {}),
  };
};

/**
 * Serves `/dashboard/` from a folder index: CloudFront's default root object covers `/` only, and
 * the bucket is private (S3 answers 403, not an index, for a folder's key).
 */
const INDEX_REWRITE = `function handler(event) {
  var request = event.request;
  if (request.uri === '/dashboard') {
    return { statusCode: 301, statusDescription: 'Moved Permanently', headers: { location: { value: '/dashboard/' } } };
  }
  if (request.uri.endsWith('/')) request.uri += 'index.html';
  return request;
}
`;

/**
 * The dashboard on AWS: its files in a private bucket read only by CloudFront (origin access
 * control), and `/v1/*` sent on by the same distribution to the HTTP API, so the dashboard calls
 * the API at its own origin (no CORS). The files are the Vite build under `dashboard/` beside a
 * `config.json` naming the user pool.
 */
export class DashboardHosting extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** `https://<distribution>/dashboard/`. */
  readonly url: string;
  /** The files' deployment; none while the repository has no dashboard sources. */
  readonly deployment?: BucketDeployment;

  constructor(scope: Construct, id: string, props: DashboardHostingProps) {
    super(scope, id);

    this.bucket = new Bucket(this, 'Files', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      // Only build output: the deployment below empties it when it is deleted, so the bucket can go too.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        "The bucket holds only the dashboard's public build output, written by the deployment and read only by CloudFront through origin access control; the API calls it makes are logged by the HTTP API's access logs.",
    });

    const cognitoOrigin = cognitoEndpoint(REGION_STAND_IN);
    const headers = Object.fromEntries(
      Object.entries(dashboardSecurityHeaders({ cognitoOrigin })).map(([name, value]) => [
        name,
        value.replaceAll(REGION_STAND_IN, Aws.REGION),
      ]),
    );
    const responseHeadersPolicy = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'Herald dashboard: the security headers of functions/shared/dashboard-headers.ts',
      ...responseHeadersOf(headers),
    });

    const indexRewrite = new EdgeFunction(this, 'IndexRewrite', {
      code: FunctionCode.fromInline(INDEX_REWRITE),
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Herald dashboard: /dashboard/ serves dashboard/index.html',
    });

    const apiDomain = `${props.api.apiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}`;
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Herald dashboard (S3) and its API (/v1/*)',
      defaultRootObject: `${DASHBOARD_PREFIX}index.html`,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy,
        functionAssociations: [{ function: indexRewrite, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        // The API as the dashboard's same-origin backend: nothing cached, every viewer header but
        // Host (API Gateway routes on its own host name) sent on, HTTPS end to end.
        '/v1/*': {
          origin: new HttpOrigin(apiDomain, {
            protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
            originSslProtocols: [OriginSslPolicy.TLS_V1_2],
          }),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        },
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      // North America and Europe only: the cheapest class; other viewers are served from those edges.
      priceClass: PriceClass.PRICE_CLASS_100,
    });
    const acknowledge = (rule: string, reason: string) =>
      Validations.of(this.distribution).acknowledge({ id: `AwsSolutions-${rule}`, reason });
    acknowledge(
      'CFR1',
      'The dashboard and its API serve customers in any country; no geographic restriction applies.',
    );
    acknowledge(
      'CFR2',
      'No WAF web ACL (at least 5 USD a month each): the API behind /v1/* has its own stage and route throttling and per-key rate limits, and the dashboard files are static.',
    );
    acknowledge(
      'CFR3',
      "Standard logging needs an ACL-enabled log bucket; the requests that matter (/v1/*) are logged by the HTTP API's access logs, and the rest are fetches of public static files.",
    );
    acknowledge(
      'CFR4',
      'No custom domain: the distribution uses the default *.cloudfront.net certificate, whose security policy CloudFront fixes (a minimum such as TLSv1.2_2021 can only be set with a certificate of our own).',
    );
    this.url = `https://${this.distribution.distributionDomainName}/${DASHBOARD_PREFIX}`;

    const files = this.dashboardFiles(props);
    if (!files) {
      Annotations.of(this).addInfo(
        `The dashboard is not deployed: ${DASHBOARD_VITE_CONFIG} does not exist yet, so the bucket stays empty.`,
      );
      return;
    }
    const config: DashboardConfig = {
      apiBase: '',
      cognito: {
        endpoint: cognitoEndpoint(Aws.REGION),
        region: Aws.REGION,
        userPoolId: props.userPoolId,
        clientId: props.userPoolClientId,
      },
    };
    this.deployment = new BucketDeployment(this, 'Deployment', {
      sources: [files, Source.jsonData('config.json', config)],
      destinationBucket: this.bucket,
      destinationKeyPrefix: DASHBOARD_PREFIX,
      prune: true,
      // The files go with the stack, so the bucket can too.
      retainOnDelete: false,
      // Browsers check back on every load (a 304 when nothing changed): a new deploy is seen at
      // once, and a stale index.html never asks for hashed files the deploy has removed.
      cacheControl: [CacheControl.noCache()],
      // Its logs beside every function's, with the same retention.
      logGroup: functionLogGroup(this),
    });
    this.acknowledgeDeploymentFunction();
  }

  /**
   * CDK's BucketDeployment runs one shared function per stack (its code, runtime and policy are
   * CDK's); its findings are acknowledged on that function, one by one.
   */
  private acknowledgeDeploymentFunction(): void {
    const stack = Stack.of(this);
    const singleton = stack.node.children.find((child) =>
      child.node.id.startsWith('Custom::CDKBucketDeployment'),
    );
    if (!singleton) throw new Error("CDK's BucketDeployment function was not found in the stack");
    const bucketId = stack.getLogicalId(this.bucket.node.defaultChild as CfnElement);
    const reasons: Record<string, string> = {
      'AwsSolutions-L1':
        "The runtime of CDK's own BucketDeployment function (Python), chosen and updated by aws-cdk-lib, not by this code.",
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]':
        "AWS managed basic execution policy: lets CDK's deployment function write its own CloudWatch logs, nothing else.",
    };
    const wildcard =
      "CDK's deployment function copies the dashboard's files: it reads the asset from CDK's staging bucket and writes, lists and prunes objects of the dashboard bucket only.";
    for (const id of [
      'Action::s3:GetObject*',
      'Action::s3:GetBucket*',
      'Action::s3:List*',
      'Action::s3:DeleteObject*',
      'Action::s3:Abort*',
      'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*',
      `Resource::<${bucketId}.Arn>/*`,
    ])
      reasons[`AwsSolutions-IAM5[${id}]`] = wildcard;
    for (const [id, reason] of Object.entries(reasons)) Validations.of(singleton).acknowledge({ id, reason });
  }

  /** The built dashboard to deploy: the given folder, or a build of the sources at synth; none without sources. */
  private dashboardFiles(props: DashboardHostingProps): ISource | undefined {
    if (props.builtDashboard) return Source.asset(props.builtDashboard);
    if (!hasDashboardSources(props.sourceRoot)) return undefined;
    return Source.asset(path.join(props.sourceRoot, 'dashboard'), {
      assetHashType: AssetHashType.OUTPUT,
      bundling: {
        // Never used: the local build below always succeeds or throws.
        image: DockerImage.fromRegistry('local-vite-only'),
        local: {
          tryBundle: (outputDir: string) => {
            buildDashboard(props.sourceRoot, outputDir);
            return true;
          },
        },
      },
    });
  }
}
