/**
 * cdk-nag 3 runs as a CDK validation plugin, but it drops acknowledged findings before CDK sees
 * them, and CDK leaves a pack with no open finding out of `cdk.out/validation-report.json`: a
 * clean synth wrote `"pluginReports": []`, which says nothing about what ran. This wrapper hands
 * CDK every acknowledged finding under the id it was acknowledged with (`Annotation::<rule>`),
 * so CDK's own suppression matching files it under `suppressedViolations` with its reason and
 * where it was acknowledged, and the pack appears with its conclusion and what it checked.
 */

import { createRequire } from 'node:module';
import type {
  CfnResource,
  IPolicyValidationContext,
  IPolicyValidationPlugin,
  PolicyValidationPluginReport,
  PolicyViolation,
} from 'aws-cdk-lib';
import type { NagPack } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/** The prefix CDK gives an id acknowledged with `Validations.of(x).acknowledge({ id })`. */
const ACKNOWLEDGED_NAMESPACE = 'Annotation::';

// The two NagPack members we observe; both exist in cdk-nag 3 (private/protected in its types).
interface ObservablePack {
  isAcknowledged(resource: IConstruct, ruleId: string): boolean;
  applyRule(params: { ruleSuffixOverride?: string; rule: { name: string }; node: CfnResource }): void;
  readPackName: string;
}

/** Wraps a cdk-nag pack so the validation report names it, its result and each acknowledged finding. */
export class ReportedNagPack implements IPolicyValidationPlugin {
  readonly name: string;
  readonly version: string;

  constructor(private readonly pack: NagPack) {
    this.name = pack.name;
    // cdk-nag's packs name no version; the report then names the cdk-nag release that ran.
    this.version =
      pack.version ?? (createRequire(import.meta.url)('cdk-nag/package.json') as { version: string }).version;
  }

  validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const pack = this.pack as unknown as ObservablePack;
    const isAcknowledged = pack.isAcknowledged;
    const applyRule = pack.applyRule;
    const acknowledged = new Set<string>();
    const rules = new Set<string>();
    const resources = new Set<string>();
    // Every finding is reported; the acknowledged ones are remembered, then renamed below.
    pack.isAcknowledged = (resource, ruleId) => {
      if (isAcknowledged.call(pack, resource, ruleId)) acknowledged.add(`${resource.node.path}\n${ruleId}`);
      return false;
    };
    pack.applyRule = (params) => {
      rules.add(`${pack.readPackName}-${params.ruleSuffixOverride ?? params.rule.name}`);
      resources.add(params.node.node.path);
      applyRule.call(pack, params);
    };
    let report: PolicyValidationPluginReport;
    try {
      report = this.pack.validate(context);
    } finally {
      pack.isAcknowledged = isAcknowledged;
      pack.applyRule = applyRule;
    }
    const violations: PolicyViolation[] = report.violations.flatMap((violation) => {
      const isAck = (r: { constructPath?: string }) =>
        acknowledged.has(`${r.constructPath ?? ''}\n${violation.ruleName}`);
      const open = violation.violatingResources.filter((r) => !isAck(r));
      const acked = violation.violatingResources.filter(isAck);
      return [
        ...(open.length > 0 ? [{ ...violation, violatingResources: open }] : []),
        ...(acked.length > 0
          ? [
              {
                ...violation,
                ruleName: `${ACKNOWLEDGED_NAMESPACE}${violation.ruleName}`,
                violatingResources: acked,
              },
            ]
          : []),
      ];
    });
    const openCount = violations.filter((v) => !v.ruleName.startsWith(ACKNOWLEDGED_NAMESPACE)).length;
    return {
      // As the pack itself decides: any open finding, warning or error, fails the synth.
      success: openCount === 0,
      violations,
      metadata: {
        rulesChecked: String(rules.size),
        resourcesChecked: String(resources.size),
        openFindings: String(openCount),
        acknowledgedFindings: String(acknowledged.size),
      },
    };
  }
}
