#!/usr/bin/env node
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSuiteOptions, usage } from './options.js';
import { textReport, writeReports } from './report.js';
import { runSuite } from './suite.js';
import { densityUsage, parseDensityOptions, runDensityCommand } from './density/density-command.js';
import { runSideBySide } from './side-by-side.js';
import { parseProfileOptions, profileUsage, runProfile } from './profile-command.js';
import { profileReport } from './profile-report.js';
import { etcdWatchBenchReport, etcdWatchUsage, parseEtcdWatchBenchOptions, runEtcdWatchBench } from './etcd-watch-bench.js';
import { etcdClientBenchReport, etcdClientUsage, parseEtcdClientBenchOptions, runEtcdClientBench } from './etcd-client-bench.js';
import { sideBySideTextReport, writeSideBySideReports } from './side-by-side-report.js';

const defaultOutDir = fileURLToPath(new URL('../../../bench/results', import.meta.url));
/** The density scenario's run directories (every process's log). */
const defaultDensityWorkDir = fileURLToPath(new URL('../../../.data/bench-density', import.meta.url));

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || rest.includes('--help')) {
    process.stdout.write(command === 'density' ? densityUsage : command === 'profile' ? profileUsage : command === 'etcd-client' ? etcdClientUsage : command === 'etcd-watch' ? etcdWatchUsage : `${usage}\n${densityUsage}\n${profileUsage}\n${etcdClientUsage}\n${etcdWatchUsage}`);
    return command === undefined ? 2 : 0;
  }
  if (command === 'density') {
    let density;
    try {
      density = parseDensityOptions(rest, { outDir: defaultOutDir, workDir: defaultDensityWorkDir });
    } catch (err) {
      process.stderr.write(`${(err as Error).message}\n${densityUsage}`);
      return 2;
    }
    return runDensityCommand(density);
  }
  if (command === 'etcd-client') {
    let bench;
    try {
      bench = parseEtcdClientBenchOptions(rest);
    } catch (err) {
      process.stderr.write(`${(err as Error).message}\n${etcdClientUsage}`);
      return 2;
    }
    process.stdout.write(etcdClientBenchReport(await runEtcdClientBench(bench), bench));
    return 0;
  }
  if (command === 'etcd-watch') {
    let bench;
    try {
      bench = parseEtcdWatchBenchOptions(rest);
    } catch (err) {
      process.stderr.write(`${(err as Error).message}\n${etcdWatchUsage}`);
      return 2;
    }
    process.stdout.write(etcdWatchBenchReport(await runEtcdWatchBench(bench), bench));
    return 0;
  }
  if (command === 'profile') {
    let profile;
    try {
      profile = parseProfileOptions(rest, defaultOutDir);
    } catch (err) {
      process.stderr.write(`${(err as Error).message}\n${profileUsage}`);
      return 2;
    }
    const result = await runProfile(profile);
    const report = profileReport(result);
    process.stdout.write(report);
    mkdirSync(profile.outDir, { recursive: true });
    writeFileSync(join(profile.outDir, 'profile.md'), report);
    writeFileSync(join(profile.outDir, 'profile.json'), `${JSON.stringify(result, null, 1)}\n`);
    process.stdout.write(`\nwrote ${join(profile.outDir, 'profile.md')} and profile.json\n`);
    return result.runs.every((r) => r.errors === 0) ? 0 : 1;
  }
  if (command !== 'suite') {
    process.stderr.write(`unknown command ${command}\n${usage}`);
    return 2;
  }
  let options;
  try {
    options = parseSuiteOptions(rest, defaultOutDir);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${usage}`);
    return 2;
  }
  if (options.against.includes('kube-apiserver')) {
    const result = await runSideBySide(options);
    process.stdout.write(`${sideBySideTextReport(result)}\n`);
    const files = writeSideBySideReports(result, options.outDir);
    process.stdout.write(`\nwrote ${files.json}\nwrote ${files.markdown}\n`);
    return result.totalErrors === 0 ? 0 : 1;
  }
  const result = await runSuite(options);
  process.stdout.write(`${textReport(result)}\n`);
  const files = writeReports(result, options.outDir);
  process.stdout.write(`\nwrote ${files.json}\nwrote ${files.markdown}\n`);
  return result.totalErrors === 0 ? 0 : 1;
}

// Exit (not die) on a signal, so that the servers and etcd the suite started are killed on exit.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`kapi-bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
