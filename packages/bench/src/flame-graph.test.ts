import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpuProfileFlameStacks, renderFlameGraph } from './flame-graph.js';

/** Checks that every tag is closed in order and that text holds no raw markup; returns the elements met. */
function wellFormed(svg: string): { name: string; attrs: Record<string, string>; text: string }[] {
  const elements: { name: string; attrs: Record<string, string>; text: string }[] = [];
  const open: { name: string; attrs: Record<string, string>; text: string }[] = [];
  const body = svg.replace(/^<\?xml[^?]*\?>\n/, '');
  let at = 0;
  for (const match of body.matchAll(/<(\/?)([a-zA-Z]+)((?:\s+[a-zA-Z:-]+="[^"<&]*(?:&(?:lt|gt|amp|quot|apos);[^"<&]*)*")*)\s*(\/?)>/g)) {
    const between = body.slice(at, match.index);
    assert.doesNotMatch(between, /[<>]|&(?!(lt|gt|amp|quot|apos);)/, `raw markup in text: ${between}`);
    if (open.length > 0) open.at(-1)!.text += between;
    at = match.index + match[0].length;
    const [, closing, name, attrText, selfClosing] = match;
    if (closing) {
      assert.equal(open.pop()?.name, name, `</${name}> closes nothing`);
      continue;
    }
    const attrs = Object.fromEntries([...attrText!.matchAll(/([a-zA-Z:-]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    const element = { name: name!, attrs, text: '' };
    elements.push(element);
    if (!selfClosing) open.push(element);
  }
  assert.equal(body.slice(at).trim(), '', 'content after the root');
  assert.deepEqual(open, [], 'unclosed elements');
  assert.equal(elements[0]?.name, 'svg');
  return elements;
}

void test('boxes are as wide as their share, callers below callees, with tooltips and cut labels', () => {
  const frame = (name: string, detail = 'x.go') => ({ name, detail });
  const svg = renderFlameGraph(
    [
      { frames: [frame('main'), frame('serve'), frame('encode<T> & "quote"')], weight: 3 },
      { frames: [frame('main'), frame('serve')], weight: 1 },
      { frames: [frame('main'), frame('a_function_with_a_name_far_too_long_for_its_little_box')], weight: 0.25 },
      { frames: [frame('gc', '')], weight: 0.75 },
      { frames: [frame('ignored')], weight: 0 },
    ],
    { title: 'kube <create>', unit: 'ms' },
  );
  const elements = wellFormed(svg);
  const rects = elements.filter((e) => e.name === 'rect').slice(1);
  const titles = elements.filter((e) => e.name === 'title').map((e) => e.text);
  assert.deepEqual(titles, [
    'all: 5.00 ms, 100.00%',
    'gc: 0.75 ms, 15.00%',
    'main (x.go): 4.25 ms, 85.00%',
    'a_function_with_a_name_far_too_long_for_its_little_box (x.go): 0.25 ms, 5.00%',
    'serve (x.go): 4.00 ms, 80.00%',
    'encode&lt;T&gt; &amp; &quot;quote&quot; (x.go): 3.00 ms, 60.00%',
  ]);
  const widths = rects.map((r) => Number(r.attrs['width']));
  assert.deepEqual(widths, [1180, 177, 1003, 59, 944, 708]);
  const ys = rects.map((r) => Number(r.attrs['y']));
  // Root at the bottom; each level one box height higher.
  assert.deepEqual([ys[0]! - ys[2]!, ys[2]! - ys[4]!, ys[4]! - ys[5]!, ys[1], ys[3]], [16, 16, 16, ys[2], ys[4]]);
  // A child starts where its parent does, siblings side by side.
  assert.deepEqual(rects.map((r) => Number(r.attrs['x'])), [10, 10, 187, 187, 246, 246]);
  const labels = elements.filter((e) => e.name === 'text').map((e) => e.text);
  assert.equal(labels[0], 'kube &lt;create&gt;');
  assert.ok(labels.includes('a_func..'), labels.join(','));
  assert.ok(labels.includes('encode&lt;T&gt; &amp; &quot;quote&quot;'));
});

void test('an empty profile is a graph with its title and an empty root', () => {
  const elements = wellFormed(renderFlameGraph([], { title: 'nothing', unit: 'ms' }));
  assert.deepEqual(
    elements.filter((e) => e.name === 'title').map((e) => e.text),
    ['all: 0.00 ms, 0%'],
  );
});

void test("a V8 profile's stacks: root left out, idle dropped, weights from the next time delta", () => {
  const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 9, columnNumber: 0 });
  const stacks = cpuProfileFlameStacks({
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 4] },
      { id: 2, callFrame: frame('handle', 'file:///k/packages/apiserver/dist/handler.js'), children: [3] },
      { id: 3, callFrame: frame('') },
      { id: 4, callFrame: frame('(idle)') },
    ],
    startTime: 0,
    endTime: 1,
    samples: [3, 4, 2, 3],
    timeDeltas: [0, 500, 250, 1000, 2000],
  });
  assert.deepEqual(stacks, [
    { frames: [{ name: 'handle', detail: 'packages/apiserver/dist/handler.js:10' }, { name: '(anonymous)', detail: '' }], weight: 2.5 },
    { frames: [{ name: 'handle', detail: 'packages/apiserver/dist/handler.js:10' }], weight: 1 },
  ]);
});
