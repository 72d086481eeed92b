/**
 * The audit log backend (--audit-log-path): one JSON line per event, written off the request
 * path. Events wait in a bounded queue and one writer appends them in order; an event that
 * finds the queue full is dropped and counted (apiserver_audit_error_total), never waited
 * for. The file is rotated as kube's (lumberjack) does it: at --audit-log-maxsize MB (100 when
 * 0) the file is renamed to `<name>-<UTC time><ext>` and a new one started; backups beyond
 * --audit-log-maxbackup or older than --audit-log-maxage days are removed, and compressed
 * with gzip under --audit-log-compress.
 */
import { closeSync, createReadStream, createWriteStream, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

export interface LogBackendOptions {
  /** The file, or `-` for standard output. */
  readonly path: string;
  /** MB before rotation; 0 = lumberjack's default, 100. */
  readonly maxSizeMb: number;
  /** Days to keep rotated files; 0 = no limit. */
  readonly maxAgeDays: number;
  /** Rotated files to keep; 0 = no limit. */
  readonly maxBackups: number;
  readonly compress: boolean;
  /** Events that may wait to be written; more are dropped. */
  readonly bufferSize: number;
  /** Events per write at most (batch mode's --audit-log-batch-max-size; 0 = as many as wait). */
  readonly maxBatchSize: number;
  /** Batch mode: how long a batch short of maxBatchSize waits for more events (ms); 0 = write at once. */
  readonly maxBatchWaitMs: number;
  /** An event was dropped (queue full) or could not be written. */
  readonly onError: (reason: 'dropped' | 'write', count: number, err?: unknown) => void;
  /** Test hook: the clock used for backup names and ages. */
  readonly now?: () => Date;
}

export interface LogBackend {
  /** Queues one encoded event line (without the newline). False when the queue is full (the event is dropped). */
  write(line: string): boolean;
  /** Events waiting. */
  readonly pending: number;
  /** Writes what is queued and closes the file. */
  close(): Promise<void>;
}

/** lumberjack's backup time format, 2006-01-02T15-04-05.000, in UTC. */
function backupStamp(date: Date): string {
  return date.toISOString().replace(/:/g, '-').replace(/Z$/, '');
}

export function createLogBackend(options: LogBackendOptions): LogBackend {
  const now = options.now ?? (() => new Date());
  const toStdout = options.path === '-';
  const maxBytes = (options.maxSizeMb > 0 ? options.maxSizeMb : 100) * 1024 * 1024;
  const queue: string[] = [];
  let file: FileHandle | undefined;
  let size = 0;
  let draining: Promise<void> | undefined;
  let closed = false;
  let batchTimer: NodeJS.Timeout | undefined;
  let wakeBatch: (() => void) | undefined;

  if (!toStdout) {
    // kube creates the file (0600) and its folder (0700) at start, so a bad path fails the start.
    mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 });
    closeSync(openSync(options.path, 'a', 0o600));
  }

  const openFile = async (): Promise<FileHandle> => {
    if (file !== undefined) return file;
    file = await open(options.path, 'a', 0o600);
    size = (await file.stat()).size;
    return file;
  };

  const removeOldBackups = async (): Promise<void> => {
    const dir = dirname(options.path);
    const ext = extname(options.path);
    const prefix = `${basename(options.path, ext)}-`;
    let backups: { name: string; time: number }[] = [];
    for (const name of readdirSync(dir)) {
      if (!name.startsWith(prefix)) continue;
      const stamp = name.slice(prefix.length).replace(/\.gz$/, '');
      if (!stamp.endsWith(ext)) continue;
      const time = Date.parse(`${stamp.slice(0, stamp.length - ext.length).replace(/T(\d\d)-(\d\d)-(\d\d)/, 'T$1:$2:$3')}Z`);
      if (Number.isFinite(time)) backups.push({ name, time });
    }
    backups.sort((a, b) => b.time - a.time);
    const remove = new Set<string>();
    if (options.maxBackups > 0) for (const b of backups.slice(options.maxBackups)) remove.add(b.name);
    if (options.maxAgeDays > 0) {
      const cutoff = now().getTime() - options.maxAgeDays * 24 * 3600 * 1000;
      for (const b of backups) if (b.time < cutoff) remove.add(b.name);
    }
    for (const name of remove) {
      try {
        unlinkSync(join(dir, name));
      } catch {
        // already gone
      }
    }
    backups = backups.filter((b) => !remove.has(b.name));
    if (!options.compress) return;
    for (const b of backups) {
      if (b.name.endsWith('.gz')) continue;
      const source = join(dir, b.name);
      await pipeline(createReadStream(source), createGzip(), createWriteStream(`${source}.gz`, { mode: statSync(source).mode }));
      unlinkSync(source);
    }
  };

  const rotate = async (): Promise<void> => {
    await file?.close();
    file = undefined;
    const ext = extname(options.path);
    const target = join(dirname(options.path), `${basename(options.path, ext)}-${backupStamp(now())}${ext}`);
    renameSync(options.path, target);
    await removeOldBackups();
  };

  const writeLines = async (lines: string[]): Promise<void> => {
    const data = lines.map((l) => `${l}\n`).join('');
    if (toStdout) {
      await new Promise<void>((resolve) => process.stdout.write(data, () => resolve()));
      return;
    }
    const bytes = Buffer.byteLength(data);
    if (size > 0 && size + bytes > maxBytes) await rotate();
    const handle = await openFile();
    await handle.write(data);
    size += bytes;
  };

  const waitForBatch = (): Promise<void> => new Promise((resolve) => {
    wakeBatch = resolve;
    batchTimer = setTimeout(resolve, options.maxBatchWaitMs);
  });

  const drain = async (): Promise<void> => {
    while (queue.length > 0) {
      if (options.maxBatchWaitMs > 0 && options.maxBatchSize > 0 && queue.length < options.maxBatchSize && !closed) await waitForBatch();
      clearTimeout(batchTimer);
      wakeBatch = undefined;
      const take = options.maxBatchSize > 0 ? Math.min(options.maxBatchSize, queue.length) : queue.length;
      const lines = queue.splice(0, take);
      try {
        await writeLines(lines);
      } catch (err) {
        options.onError('write', lines.length, err);
      }
    }
  };

  const kick = () => {
    if (draining !== undefined) {
      if (options.maxBatchSize > 0 && queue.length >= options.maxBatchSize) wakeBatch?.();
      return;
    }
    draining = drain().finally(() => {
      draining = undefined;
      if (queue.length > 0) kick();
    });
  };

  return {
    write(line) {
      if (closed || queue.length >= options.bufferSize) {
        options.onError('dropped', 1);
        return false;
      }
      queue.push(line);
      kick();
      return true;
    },
    get pending() {
      return queue.length;
    },
    async close() {
      closed = true;
      wakeBatch?.();
      while (draining !== undefined) await draining;
      await file?.close();
      file = undefined;
    },
  };
}
