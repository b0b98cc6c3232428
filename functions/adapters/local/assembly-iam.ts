/**
 * IAM's evaluation of identity-based policies, for the statements a synthesized template gives a
 * function's role: an explicit Deny wins, else an Allow whose action, resource and conditions all
 * match allows, else the call is refused. The deploy rehearsal checks every AWS call a bundle makes
 * with it, so a policy CDK builds wrong fails there (the source-mode runtime checks the manifest's
 * grants instead, functions/adapters/local/grant-guard.ts).
 */
import type { AccessRequest } from '../../shared/grants.ts';

/** A statement with its resources resolved to local ARNs. */
export interface ResolvedStatement {
  effect: 'Allow' | 'Deny';
  actions: readonly string[];
  resources: readonly string[];
  conditions: Record<string, Record<string, readonly string[]>>;
}

const globPattern = (pattern: string, flags = '') =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.')}$`,
    flags,
  );

const matchesAny = (patterns: readonly string[], value: string, flags = '') =>
  patterns.some((pattern) => globPattern(pattern, flags).test(value));

type Compare = (value: string, expected: string) => boolean;

const COMPARISONS: Record<string, Compare> = {
  StringEquals: (value, expected) => value === expected,
  StringNotEquals: (value, expected) => value !== expected,
  StringEqualsIgnoreCase: (value, expected) => value.toLowerCase() === expected.toLowerCase(),
  StringLike: (value, expected) => globPattern(expected).test(value),
  StringNotLike: (value, expected) => !globPattern(expected).test(value),
  ArnEquals: (value, expected) => value === expected,
  ArnLike: (value, expected) => globPattern(expected).test(value),
  ArnNotEquals: (value, expected) => value !== expected,
  ArnNotLike: (value, expected) => !globPattern(expected).test(value),
  Bool: (value, expected) => value.toLowerCase() === expected.toLowerCase(),
};

const NEGATED = new Set(['StringNotEquals', 'StringNotLike', 'ArnNotEquals', 'ArnNotLike']);

/** One condition operator over one key (IAM's rules for single- and multivalued keys). */
const conditionHolds = (
  operator: string,
  expected: readonly string[],
  actual: string | readonly string[] | undefined,
): boolean => {
  if (operator === 'Null') {
    const absent = actual === undefined || (Array.isArray(actual) && actual.length === 0);
    return expected.some((value) => (value === 'true') === absent);
  }
  let base = operator;
  let set: 'ForAllValues' | 'ForAnyValue' | null = null;
  const qualifier = /^(ForAllValues|ForAnyValue):(.+)$/.exec(base);
  if (qualifier) {
    set = qualifier[1] as 'ForAllValues' | 'ForAnyValue';
    base = qualifier[2] as string;
  }
  const ifExists = base.endsWith('IfExists');
  if (ifExists) base = base.slice(0, -'IfExists'.length);
  const compare = COMPARISONS[base];
  if (!compare) throw new Error(`The rehearsal cannot evaluate the IAM condition operator ${operator}`);
  const values = actual === undefined ? [] : typeof actual === 'string' ? [actual] : [...actual];
  const negated = NEGATED.has(base);
  // A negated operator holds when no expected value matches; a positive one when any does.
  const one = (value: string) =>
    negated ? expected.every((e) => compare(value, e)) : expected.some((e) => compare(value, e));
  if (set === 'ForAllValues') return values.every(one);
  if (set === 'ForAnyValue') return values.some(one);
  if (values.length === 0) return ifExists || negated;
  return one(values[0] as string);
};

const statementMatches = (statement: ResolvedStatement, request: AccessRequest): boolean =>
  matchesAny(statement.actions, request.action, 'i') &&
  matchesAny(statement.resources, request.arn) &&
  Object.entries(statement.conditions).every(([operator, keys]) =>
    Object.entries(keys).every(([key, expected]) =>
      conditionHolds(operator, expected, request.context?.[key]),
    ),
  );

/** Whether the statements allow the request, as IAM decides for an identity-based policy alone. */
export const statementsAllow = (
  statements: readonly ResolvedStatement[],
  request: AccessRequest,
): boolean => {
  if (statements.some((s) => s.effect === 'Deny' && statementMatches(s, request))) return false;
  return statements.some((s) => s.effect === 'Allow' && statementMatches(s, request));
};
