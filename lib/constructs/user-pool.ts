import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccountRecovery,
  FeaturePlan,
  Mfa,
  StandardThreatProtectionMode,
  UserPool,
  type UserPoolClient,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';

export interface HeraldUsersProps {
  /** The pool's fixed name per stage (`herald-<stage>`): the people of one stage. */
  readonly userPoolName: string;
}

/** The issuer of a pool's tokens: what API Gateway's JWT authorizer checks `iss` against. */
export const userPoolIssuer = (region: string, userPoolId: string): string =>
  `https://cognito-idp.${region}.amazonaws.com/${userPoolId}`;

/** The regional Cognito endpoint the dashboard signs in with (its JSON API, called from the browser). */
export const cognitoEndpoint = (region: string): string => `https://cognito-idp.${region}.amazonaws.com`;

/**
 * The people who sign in to the dashboard: a Cognito user pool (email and password, optional TOTP,
 * no self sign-up: owners are made by `npm run admin -- create-owner`) and the dashboard's app
 * client (public, no secret: the browser calls Cognito's API itself).
 */
export class HeraldUsers extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;
  /** `https://cognito-idp.<region>.amazonaws.com/<poolId>`. */
  readonly issuer: string;

  constructor(scope: Construct, id: string, props: HeraldUsersProps) {
    super(scope, id);
    this.userPool = new UserPool(this, 'Pool', {
      userPoolName: props.userPoolName,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      selfSignUpEnabled: false,
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(7),
      },
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { sms: false, otp: true },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      // Threat protection (compromised credentials, risky sign-ins) needs the Plus plan: a few cents
      // per active user a month (docs/operating-on-aws.md).
      featurePlan: FeaturePlan.PLUS,
      standardThreatProtectionMode: StandardThreatProtectionMode.FULL_FUNCTION,
      deletionProtection: true,
      // As every resource that holds data: kept on delete and replacement, not on a failed first deploy.
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });
    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions-COG2',
      reason:
        'MFA is optional by design (issue 29): every owner can turn on TOTP in the dashboard; SMS is off, and threat protection blocks risky and compromised-credential sign-ins.',
    });

    this.client = this.userPool.addClient('Dashboard', {
      userPoolClientName: 'dashboard',
      generateSecret: false,
      authFlows: { userPassword: true, userSrp: true },
      // The dashboard signs in through Cognito's JSON API, not the hosted UI: no OAuth flows.
      disableOAuth: true,
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(30),
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
    });
    this.issuer = userPoolIssuer(Stack.of(this).region, this.userPool.userPoolId);
  }
}
