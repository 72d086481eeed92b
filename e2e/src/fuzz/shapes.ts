/** Counts of what the fuzzer sent and got back, per dimension, for the closing report. */
import type { FuzzCase } from './requests.js';
import type { FuzzResponse } from './send.js';

export class ShapeCounts {
  private readonly counts = new Map<string, Map<string, number>>();

  private add(dimension: string, value: string): void {
    let byValue = this.counts.get(dimension);
    if (!byValue) this.counts.set(dimension, (byValue = new Map()));
    byValue.set(value, (byValue.get(value) ?? 0) + 1);
  }

  record(c: FuzzCase, res: FuzzResponse): void {
    const req = c.request;
    this.add('method', req.method);
    this.add('operation', c.shape.operation);
    this.add('resource', c.shape.resource);
    this.add('content type', req.body === undefined ? '(no body)' : (req.headers['content-type'] ?? '(none)').slice(0, 60));
    if (c.shape.patchType) this.add('patch type', c.shape.patchType);
    if (c.shape.encoding) this.add('body encoding', c.shape.encoding);
    for (const label of c.shape.labels) this.add('mutation', label);
    this.add('accept', (req.headers.accept ?? '(none)').slice(0, 60));
    if (req.headers['content-encoding'] !== undefined) this.add('content encoding', req.headers['content-encoding']);
    this.add('status', res.status === 0 ? `no response` : res.status === -1 ? 'not sent' : String(res.status));
    if (res.stream) this.add('status', 'watch stream');
  }

  /** `dimension: value count, …` lines, values by count (the top `top` of each). */
  lines(top = 25): string[] {
    return [...this.counts].map(([dimension, byValue]) => {
      const sorted = [...byValue].sort((a, b) => b[1] - a[1]);
      const shown = sorted.slice(0, top).map(([v, n]) => `${v} ${n}`);
      if (sorted.length > top) shown.push(`(+${sorted.length - top} more)`);
      return `${dimension}: ${shown.join(', ')}`;
    });
  }
}
