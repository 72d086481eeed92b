/**
 * Logs with kube's verbosity levels (`-v`/`--v`). Two formats, as kube's `--logging-format`:
 *
 * - `json` (kapi's default): one JSON object a line, as kube's JSON logger writes them:
 *   `{"ts":1700000000.123456,"msg":"HTTP","v":3,"verb":"GET",...}`; errors carry `err` and no
 *   `v`; warnings are `v` 0 with `"severity":"warning"`.
 * - `text`: klog's header `I0102 15:04:05.000000   12345 message key="value" ...`.
 *
 * Structured fields are passed as an object and written as keys (JSON) or `key="value"` pairs (text).
 */

export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  /** Logged only when the verbosity is at least `level`. */
  debug(level: number, message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, err?: unknown, fields?: LogFields): void;
  /** Whether `debug(level, ...)` writes anything (skip building costly fields otherwise). */
  enabled?(level: number): boolean;
  /** False once writing a log line has failed (kube's `log` health check). */
  healthy?(): boolean;
  /** Changes the verbosity from now on (kube's PUT /debug/flags/v). */
  setVerbosity?(level: number): void;
}

export type LogFormat = 'json' | 'text';

export interface LoggerOptions {
  readonly verbosity?: number;
  readonly format?: LogFormat;
  /** Where lines go; default stderr. A write that throws marks the logger unhealthy. */
  readonly write?: (line: string) => void;
}

function klogHeader(severity: string): string {
  const d = new Date();
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${severity}${pad(d.getMonth() + 1)}${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}000 ${String(process.pid).padStart(7)}`;
}

function errorText(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

function textPairs(fields: LogFields | undefined): string {
  if (fields === undefined) return '';
  let out = '';
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    out += ` ${key}=${typeof value === 'string' ? JSON.stringify(value) : typeof value === 'object' ? JSON.stringify(JSON.stringify(value)) : String(value)}`;
  }
  return out;
}

/**
 * A logger. The old positional form `createLogger(verbosity, write)` is kept and writes klog
 * text; the options form defaults to JSON.
 */
export function createLogger(options?: LoggerOptions | number, legacyWrite?: (line: string) => void): Logger {
  const opts: LoggerOptions = typeof options === 'number' || options === undefined
    ? { verbosity: options ?? 0, format: 'text', ...(legacyWrite ? { write: legacyWrite } : {}) }
    : options;
  let verbosity = opts.verbosity ?? 0;
  const format = opts.format ?? 'json';
  const sink = opts.write ?? ((line: string) => process.stderr.write(line));
  let healthy = true;
  const write = (line: string) => {
    try {
      sink(line);
      healthy = true;
    } catch {
      healthy = false;
    }
  };
  const emit = (severity: 'I' | 'W' | 'E', level: number, message: string, fields: LogFields | undefined, err?: unknown) => {
    if (format === 'text') {
      const tail = err === undefined ? '' : ` err=${JSON.stringify(errorText(err))}`;
      write(`${klogHeader(severity)} ${message}${textPairs(fields)}${tail}\n`);
      return;
    }
    const entry: Record<string, unknown> = { ts: Date.now() / 1000, msg: message };
    if (severity !== 'E') entry['v'] = level;
    if (severity === 'W') entry['severity'] = 'warning';
    if (fields !== undefined) Object.assign(entry, fields);
    if (err !== undefined) entry['err'] = errorText(err);
    let line: string;
    try {
      line = JSON.stringify(entry);
    } catch {
      line = JSON.stringify({ ts: entry['ts'], msg: message, err: 'unserializable log fields' });
    }
    write(`${line}\n`);
  };
  return {
    info: (message, fields) => emit('I', 0, message, fields),
    debug: (level, message, fields) => {
      if (verbosity >= level) emit('I', level, message, fields);
    },
    warn: (message, fields) => emit('W', 0, message, fields),
    error: (message, err, fields) => emit('E', 0, message, fields, err),
    enabled: (level) => verbosity >= level,
    healthy: () => healthy,
    setVerbosity: (level) => {
      verbosity = level;
    },
  };
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = { info: () => {}, debug: () => {}, warn: () => {}, error: () => {}, enabled: () => false, healthy: () => true };

/** Go's time.Duration.String() for a duration in nanoseconds ("350µs", "2.115855ms", "1.5s"). */
export function goDuration(ns: bigint | number): string {
  const n = typeof ns === 'bigint' ? Number(ns) : ns;
  if (n === 0) return '0s';
  const trim = (value: number, digits: number) => value.toFixed(digits).replace(/\.?0+$/, '');
  if (n < 1e3) return `${n}ns`;
  if (n < 1e6) return `${trim(n / 1e3, 3)}µs`;
  if (n < 1e9) return `${trim(n / 1e6, 6)}ms`;
  return `${trim(n / 1e9, 9)}s`;
}
