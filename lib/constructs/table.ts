import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLE_KEYS } from '../../functions/adapters/aws/dynamo/keys.ts';

/** The global secondary indexes, in the order they are declared. */
export const TABLE_INDEXES = [TABLE_KEYS.gsi1, TABLE_KEYS.gsi2] as const;

/** The single table (single-table design); its attribute names come from the code's key module. */
export class HeraldTable extends Construct {
  readonly table: TableV2;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const string = (name: string) => ({ name, type: AttributeType.STRING });
    this.table = new TableV2(this, 'Table', {
      partitionKey: string(TABLE_KEYS.partitionKey),
      sortKey: string(TABLE_KEYS.sortKey),
      globalSecondaryIndexes: TABLE_INDEXES.map((gsi) => ({
        indexName: gsi.name,
        partitionKey: string(gsi.partitionKey),
        sortKey: string(gsi.sortKey),
        projectionType: ProjectionType.ALL,
      })),
      billing: Billing.onDemand(),
      timeToLiveAttribute: TABLE_KEYS.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
