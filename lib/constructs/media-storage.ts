import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  HttpMethods,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { UPLOADS_PREFIX } from '../../functions/core/media/object-keys.ts';

export interface MediaStorageProps {
  /**
   * The media bucket's fixed name: the table's media records name its objects, so a stack
   * re-created beside a retained bucket must fail on the name rather than start an empty one.
   */
  readonly bucketName: string;
}

/** The media bucket (presigned uploads and downloads) and the bucket its server access logs go to. */
export class MediaStorage extends Construct {
  readonly bucket: Bucket;
  readonly accessLogsBucket: Bucket;

  constructor(scope: Construct, id: string, props: MediaStorageProps) {
    super(scope, id);

    this.accessLogsBucket = new Bucket(this, 'AccessLogs', {
      // S3 server access logging can only deliver to a bucket encrypted with SSE-S3.
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(365) }],
      // A generated name: a re-created stack starts a new log bucket and the old one keeps its logs.
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });

    this.bucket = new Bucket(this, 'Media', {
      bucketName: props.bucketName,
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'media/',
      lifecycleRules: [
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // Presigned uploads land under uploads/ and `complete` copies them into the library; what
        // was never completed (its record expires after a day too) is removed here.
        { id: 'expire-uncompleted-uploads', prefix: UPLOADS_PREFIX, expiration: Duration.days(1) },
      ],
      // Browsers upload and download directly with presigned URLs; the signature, not CORS, is the guard.
      cors: [
        {
          allowedMethods: [HttpMethods.PUT, HttpMethods.GET],
          allowedOrigins: ['*'],
          allowedHeaders: ['*'],
          exposedHeaders: ['ETag'],
          maxAge: 3000,
        },
      ],
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });
  }
}
