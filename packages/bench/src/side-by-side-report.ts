/** The side-by-side report: the comparison table, the runs, then every run's own tables. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorLines, markdownTable, pinningLine, sections, textTable } from './report.js';
import { runRows, sideBySideRows, type SideBySideResult } from './side-by-side.js';

function heading(result: SideBySideResult): string[] {
  const o = result.options;
  const pinned = result.runs.find((r) => r.result)?.result;
  return [
    `${result.servers.join(' vs ')}, ${o.repetitions} rounds in alternating order, ${o.quick ? 'quick' : 'full'} sizes; ${result.elapsedSeconds.toFixed(0)} s in all`,
    `host: ${result.host.cpus} × ${result.host.cpuModel}, ${(result.host.memoryBytes / 2 ** 30).toFixed(0)} GiB, node ${result.host.node}, ${result.host.etcdVersion}${result.kubeVersion !== undefined ? `, kube-apiserver ${result.kubeVersion}` : ''}`,
    `each run: a fresh etcd and a fresh server, HTTPS (self-signed) with one bearer token (system:masters, AlwaysAllow), the same kapi-bench client and concurrency; ${pinned ? pinningLine(pinned) : 'no run completed'}`,
    `server CPU per op and RSS: /proc/<pid>/stat and status of the server process and its children (kapi --workers: all of them)`,
    `in each run's own tables the server under test is labelled "kapi" whatever it is`,
  ];
}

/** Console form. */
export function sideBySideTextReport(result: SideBySideResult): string {
  return [
    `kapi-bench side by side ${result.date}`,
    ...heading(result),
    '',
    textTable(sideBySideRows(result)),
    '',
    textTable(runRows(result)),
    ...(result.skipped.length > 0 ? ['', `skipped: ${result.skipped.join('; ')}`] : []),
    ...result.runs.flatMap((r) => (r.result?.skipped?.length ? [`skipped on ${r.server} round ${r.repetition}: ${r.result.skipped.join('; ')}`] : [])),
    '',
    result.totalErrors === 0 ? 'errors: none' : `errors: ${result.totalErrors} — THIS RUN FAILED\n${result.runs.flatMap((r) => [...(r.error ? [`  ${r.server} round ${r.repetition}: ${r.error.split('\n')[0]}`] : []), ...(r.result ? errorLines(r.result).map((e) => `  ${r.server} round ${r.repetition}: ${e}`) : [])]).join('\n')}`,
  ].join('\n');
}

/** Markdown form, with each run's tables after the comparison. */
export function sideBySideMarkdownReport(result: SideBySideResult, jsonFileName: string): string {
  return [
    `# kapi-bench side by side ${result.date}`,
    '',
    ...heading(result).map((l) => `- ${l}`),
    '',
    '## Comparison',
    '',
    'Values are min–max over the rounds; ratios are per round (kapi ÷ kube-apiserver of the same round).',
    '',
    markdownTable(sideBySideRows(result)),
    '',
    '## Runs',
    '',
    markdownTable(runRows(result)),
    '',
    ...(result.skipped.length > 0 ? ['## Skipped', '', ...result.skipped.map((s) => `- ${s}`), ''] : []),
    ...result.runs.flatMap((r) => [
      `## ${r.server}, round ${r.repetition}`,
      '',
      ...(r.error !== undefined ? ['Did not run:', '', '```', r.error, '```', ''] : []),
      ...(r.result
        ? [
            ...sections(r.result).flatMap(([title, rows]) => [`### ${title}`, '', markdownTable(rows), '']),
            ...(r.result.skipped?.length ? ['Skipped:', '', ...r.result.skipped.map((s) => `- ${s}`), ''] : []),
            r.result.totalErrors === 0 ? 'Errors: none.' : `Errors: ${r.result.totalErrors}\n\n${errorLines(r.result).map((e) => `- ${e}`).join('\n')}`,
            '',
          ]
        : []),
    ]),
    `## Errors`,
    '',
    result.totalErrors === 0 ? 'None.' : `${result.totalErrors} errors — the run failed (see each run above).`,
    '',
    `Raw data: [${jsonFileName}](${jsonFileName})`,
    '',
  ].join('\n');
}

/** Writes `<outDir>/<date>-side-by-side.json` and `.md`; returns both paths. */
export function writeSideBySideReports(result: SideBySideResult, outDir: string): { json: string; markdown: string } {
  mkdirSync(outDir, { recursive: true });
  const stem = `${result.date.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z')}-side-by-side`;
  const json = join(outDir, `${stem}.json`);
  const markdown = join(outDir, `${stem}.md`);
  writeFileSync(json, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(markdown, sideBySideMarkdownReport(result, `${stem}.json`));
  return { json, markdown };
}
