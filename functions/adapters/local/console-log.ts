/**
 * What the local runtime prints: short readable lines (start-up progress, one line per request,
 * scheduler notices), filtered by LOG_LEVEL. On AWS the handlers log JSON through Powertools
 * instead, at the same levels.
 */

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LocalLog {
  readonly level: LogLevel;
  debug(line: string): void;
  info(line: string): void;
  warn(line: string): void;
  error(line: string): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Powertools' level names map onto ours (TRACE is debug, CRITICAL is error); case does not matter. */
export const parseLogLevel = (value: string | undefined, fallback: LogLevel = 'info'): LogLevel => {
  if (value === undefined || value.trim() === '') return fallback;
  const lower = value.trim().toLowerCase();
  if (lower === 'trace') return 'debug';
  if (lower === 'critical') return 'error';
  if ((LOG_LEVELS as readonly string[]).includes(lower)) return lower as LogLevel;
  throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(value)})`);
};

/** Lines at `level` and above: debug and info to stdout, warn and error to stderr. */
export const consoleLog = (level: LogLevel): LocalLog => {
  const at = (lineLevel: LogLevel, write: (line: string) => void) => (line: string) => {
    if (RANK[lineLevel] >= RANK[level]) write(line);
  };
  return {
    level,
    debug: at('debug', (line) => console.log(line)),
    info: at('info', (line) => console.log(line)),
    warn: at('warn', (line) => console.warn(line)),
    error: at('error', (line) => console.error(line)),
  };
};

/** Prints nothing (the tests' runtimes). */
export const silentLog: LocalLog = consoleLog('silent');

export interface RequestLine {
  method: string;
  /** Without the query string, which is no business of a log. */
  path: string;
  status: number;
  durationMs: number;
  requestId: string | undefined;
}

/** A key pasted into a path by mistake is not printed either. */
const redactKeys = (text: string) => text.replace(/\b(sk_(?:live|test)_)[A-Za-z0-9]+/g, '$1…');

/** `POST /v1/posts 201 34ms req_…`: no header, body or query string, so no key or token. */
export const formatRequestLine = (request: RequestLine): string =>
  `${request.method} ${redactKeys(request.path)} ${request.status} ${Math.round(request.durationMs)}ms ${request.requestId ?? '-'}`;
