/**
 * The architecture as rules (ARCHITECTURE.md "Where code lives"; README "Architecture map").
 * `npm run layers` prints what breaks them; test/unit/layers.test.ts fails on any of it in `npm test`.
 *
 * Each folder of functions/ is a layer and imports only itself and the layers it lists here,
 * type-only imports included. The lowest come first.
 */
const LAYERS = {
  // The model every layer shares: records, plan names, ids, errors, the platform catalogue. Pure.
  domain: [],
  // Helpers with no port behind them: environment, Powertools, pagination, grants, address policy.
  shared: ['domain'],
  // Interfaces named for what they do; they speak the domain's types.
  ports: ['domain'],
  // Use cases `(deps, input)` and pure policies, on ports only.
  core: ['domain', 'shared', 'ports'],
  // Each network's client, OAuth and metrics: adapters to the outside world, never use cases.
  platforms: ['domain', 'shared', 'ports'],
  // Implementations of the ports (DynamoDB, S3, SQS, Scheduler, KMS, the local engines).
  adapters: ['domain', 'shared', 'ports', 'platforms'],
  // The OpenAPI document, built from the use cases' schemas and views.
  openapi: ['domain', 'shared', 'ports', 'core'],
  // Composition: one part per capability, adapters chosen here.
  runtime: ['domain', 'shared', 'ports', 'core', 'platforms', 'adapters'],
  // The HTTP pipeline and one thin handler per route; each composes its parts from runtime.
  http: ['domain', 'shared', 'ports', 'core', 'openapi', 'runtime'],
  // One handler per queue.
  workers: ['domain', 'shared', 'ports', 'core', 'runtime'],
};

/**
 * The local runtime hosts every function: it starts the handlers the manifests name (by path, at
 * run time) and so sits above them all. It may read the manifests, never import a handler.
 */
const HOST = '^functions/adapters/local/(runtime|http-server)[.]ts$';
const MANIFESTS = '^functions/(http/routes|workers/manifest)[.]ts$';
/** The only modules of functions/ that start the network simulators (local runtime only). */
const SIMULATOR_STARTERS = '^functions/adapters/local/(simulators|sim-oauth-apps)[.]ts$';
const HIGHER_THAN_PLATFORMS = Object.keys(LAYERS).filter(
  (layer) => !['domain', 'shared', 'ports', 'platforms'].includes(layer),
);

const any = (names) => `^functions/(${names.join('|')})/`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...Object.entries(LAYERS).map(([layer, allowed]) => ({
      name: `${layer}-imports-only-${allowed.length ? allowed.join('-') : 'itself'}`,
      comment: `functions/${layer}/ imports only ${[layer, ...allowed].map((l) => `functions/${l}/`).join(', ')}.`,
      severity: 'error',
      from: { path: `^functions/${layer}/`, ...(layer === 'adapters' ? { pathNot: HOST } : {}) },
      to: { path: '^functions/', pathNot: any([layer, ...allowed]) },
    })),
    {
      name: 'host-loads-handlers-by-path',
      comment:
        'The local runtime reads the manifests and starts handlers by their entry paths; it imports no handler.',
      severity: 'error',
      from: { path: HOST },
      to: { path: '^functions/(http|workers)/', pathNot: MANIFESTS },
    },
    {
      name: 'every-folder-is-a-layer',
      comment: `Code under functions/ lives in a layer: ${Object.keys(LAYERS).join(', ')} (add a new one to LAYERS).`,
      severity: 'error',
      from: { path: '^functions/', pathNot: any(Object.keys(LAYERS)) },
      to: {},
    },
    {
      name: 'simulators-only-in-the-local-runtime',
      comment: 'The network simulators are never shipped: only the local runtime starts them.',
      severity: 'error',
      from: { path: '^functions/', pathNot: SIMULATOR_STARTERS },
      to: { path: '^simulators/' },
    },
    {
      name: 'simulators-fake-only-the-network',
      comment:
        'A simulator plays a network: it may share the domain, ports and platform code, nothing above.',
      severity: 'error',
      from: { path: '^simulators/' },
      to: { path: any(HIGHER_THAN_PLATFORMS) },
    },
    {
      name: 'simulator-imports-no-other-network',
      comment:
        "A network's simulator imports the simulator framework and its own network's files, never another network's.",
      severity: 'error',
      from: { path: '^simulators/([^/]+)/' },
      to: { path: '^simulators/', pathNot: ['^simulators/framework/', '^simulators/$1/'] },
    },
    {
      name: 'shipped-code-imports-no-tooling',
      comment: 'functions/ is what the Lambdas ship: it never imports the CLI, the stacks, benches or tests.',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: '^(bin|lib|bench|test|client)/' },
    },
    {
      name: 'no-cycles-in-the-model',
      comment: 'domain, ports and core form no import cycle (type-only imports included).',
      severity: 'error',
      from: { path: any(['domain', 'ports', 'core']) },
      to: { circular: true, viaOnly: { path: any(['domain', 'ports', 'core']) } },
    },
  ],
  options: {
    // Type-only imports count: a port that names a use case's type depends on it.
    tsPreCompilationDeps: true,
    // ES modules only; and no analysis the rules do not ask for (orphans, metrics): a faster cruise.
    moduleSystems: ['es6'],
    skipAnalysisNotInRules: true,
    tsConfig: { fileName: 'tsconfig.json' },
    includeOnly: '^(functions|simulators|bin|lib|bench|test|client)/',
    doNotFollow: { path: 'node_modules' },
  },
};
