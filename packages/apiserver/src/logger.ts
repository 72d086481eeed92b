/** A small klog-style logger on stderr: `I0102 15:04:05.000000 12345 message`, with -v levels. */

export interface Logger {
  info(message: string): void;
  /** Logged only when the verbosity is at least `level`. */
  debug(level: number, message: string): void;
  warn(message: string): void;
  error(message: string, err?: unknown): void;
}

function stamp(severity: string): string {
  const d = new Date();
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${severity}${pad(d.getMonth() + 1)}${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}000 ${String(process.pid).padStart(7)}`;
}

/** A logger writing to `write` (default stderr). */
export function createLogger(verbosity = 0, write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const emit = (severity: string, message: string) => write(`${stamp(severity)} ${message}\n`);
  return {
    info: (message) => emit('I', message),
    debug: (level, message) => {
      if (verbosity >= level) emit('I', message);
    },
    warn: (message) => emit('W', message),
    error: (message, err) => emit('E', err === undefined ? message : `${message}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
  };
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = { info: () => {}, debug: () => {}, warn: () => {}, error: () => {} };
