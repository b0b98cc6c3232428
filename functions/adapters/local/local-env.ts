/**
 * Imported first by the local runtime: Powertools reads these when its singletons are built,
 * which happens as soon as any handler module is imported.
 */
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_TRACE_ENABLED ??= 'false';
// Locally the runtime prints each request as one readable line (LOG_LEVEL=info), so the handlers'
// JSON logs (the same request line, on AWS) show only from warnings up, unless LOG_LEVEL asks for
// debug output or for less.
const level = process.env.LOG_LEVEL?.trim().toUpperCase();
process.env.POWERTOOLS_LOG_LEVEL ??=
  level === 'DEBUG' || level === 'TRACE' || level === 'ERROR' || level === 'CRITICAL' || level === 'SILENT'
    ? level
    : 'WARN';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
