import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLE_KEYS } from '../../functions/adapters/aws/dynamo/keys.ts';

/** The global secondary indexes, in the order they are declared. */
export const TABLE_INDEXES = [TABLE_KEYS.gsi1, TABLE_KEYS.gsi2] as const;

export interface HeraldTableProps {
  /**
   * The table's fixed name (`herald-<stage>`): a stack re-created beside a retained table fails on
   * it instead of starting a new, empty table (docs/operating-on-aws.md, "Re-creating a stage", imports it instead).
   */
  readonly tableName: string;
}

/** The single table (single-table design); its attribute names come from the code's key module. */
export class HeraldTable extends Construct {
  readonly table: TableV2;

  constructor(scope: Construct, id: string, props: HeraldTableProps) {
    super(scope, id);
    const string = (name: string) => ({ name, type: AttributeType.STRING });
    this.table = new TableV2(this, 'Table', {
      tableName: props.tableName,
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
      // Kept on delete and on replacement, but removed when the deploy that created it rolls back,
      // so a failed first deploy leaves no table behind to block the next one. DynamoDB's deletion
      // protection would refuse that rollback's delete (stack in ROLLBACK_FAILED), so it is not set
      // here: docs/operating-on-aws.md, "Re-creating a stage", says how to turn it on once the stage exists.
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });
  }
}
