/**
 * Flame graphs as standalone SVG: stacks are merged into a call tree (frames are the same when
 * name and detail are), and each tree node is drawn as one box whose width is its share of the
 * total weight, callers below callees. Every box carries a `<title>` (the browser's tooltip)
 * with the frame, its detail, its weight and share; labels are cut to fit their box. Boxes
 * narrower than {@link minBoxWidth} pixels are left out with everything above them.
 */
import type { CpuProfile } from './profile-stages.js';

export interface FlameFrame {
  /** The label, e.g. a function name. */
  name: string;
  /** Where it is (file, url), shown in the tooltip; frames differing here are different boxes. */
  detail: string;
}

/** One stack, outermost frame first, and its weight (e.g. CPU ms). */
export interface FlameStack {
  frames: FlameFrame[];
  weight: number;
}

interface TreeNode {
  frame: FlameFrame;
  weight: number;
  children: Map<string, TreeNode>;
}

const width = 1200;
const margin = 10;
const boxHeight = 16;
const charWidth = 6.6;
const minBoxWidth = 0.3;

function buildTree(stacks: readonly FlameStack[]): TreeNode {
  const root: TreeNode = { frame: { name: 'all', detail: '' }, weight: 0, children: new Map() };
  for (const stack of stacks) {
    if (!(stack.weight > 0)) continue;
    root.weight += stack.weight;
    let node = root;
    for (const frame of stack.frames) {
      const key = `${frame.name}\u0000${frame.detail}`;
      let child = node.children.get(key);
      if (child === undefined) {
        child = { frame, weight: 0, children: new Map() };
        node.children.set(key, child);
      }
      child.weight += stack.weight;
      node = child;
    }
  }
  return root;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** A warm colour from the frame's name, stable across graphs. */
function colorOf(name: string): string {
  let hash = 2166136261;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 16777619) >>> 0;
  const r = 205 + (hash % 50);
  const g = 80 + ((hash >>> 8) % 150);
  const b = 30 + ((hash >>> 16) % 50);
  return `rgb(${r},${g},${b})`;
}

function depthOf(node: TreeNode, scale: number): number {
  let deepest = 0;
  for (const child of node.children.values()) if (child.weight * scale >= minBoxWidth) deepest = Math.max(deepest, depthOf(child, scale));
  return deepest + 1;
}

/**
 * Renders `stacks` as an SVG document titled `title`; `unit` names the weight in tooltips
 * (e.g. "ms"). An empty profile gives a graph with only its title and an empty root.
 */
export function renderFlameGraph(stacks: readonly FlameStack[], options: { title: string; unit: string }): string {
  const root = buildTree(stacks);
  const total = root.weight;
  const scale = total > 0 ? (width - 2 * margin) / total : 0;
  const depth = total > 0 ? depthOf(root, scale) : 1;
  const top = 36;
  const height = top + depth * boxHeight + margin;
  const boxes: string[] = [];
  const draw = (node: TreeNode, x: number, level: number): void => {
    const w = node.weight * scale;
    const y = height - margin - (level + 1) * boxHeight;
    const share = total > 0 ? ((100 * node.weight) / total).toFixed(2) : '0';
    const tip = `${node.frame.name}${node.frame.detail ? ` (${node.frame.detail})` : ''}: ${node.weight.toFixed(2)} ${options.unit}, ${share}%`;
    const room = Math.floor((w - 4) / charWidth);
    const label = room < 3 ? '' : node.frame.name.length <= room ? node.frame.name : `${node.frame.name.slice(0, room - 2)}..`;
    boxes.push(
      `<g><title>${escapeXml(tip)}</title><rect x="${x.toFixed(2)}" y="${y}" width="${Math.max(w, 0).toFixed(2)}" height="${boxHeight - 1}" rx="2" fill="${colorOf(node.frame.name)}"/>` +
        (label ? `<text x="${(x + 3).toFixed(2)}" y="${y + boxHeight - 4}">${escapeXml(label)}</text>` : '') +
        '</g>',
    );
    let childX = x;
    for (const child of [...node.children.values()].sort((a, b) => (a.frame.name < b.frame.name ? -1 : a.frame.name > b.frame.name ? 1 : 0))) {
      if (child.weight * scale >= minBoxWidth) draw(child, childX, level + 1);
      childX += child.weight * scale;
    }
  };
  draw(root, margin, 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="monospace" font-size="11">`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#f8f8f8"/>`,
    `<text x="${margin}" y="20" font-size="14">${escapeXml(options.title)}</text>`,
    ...boxes,
    '</svg>',
    '',
  ].join('\n');
}

/** A V8 `.cpuprofile`'s stacks (idle left out), weighted by sampled ms. */
export function cpuProfileFlameStacks(profile: CpuProfile): FlameStack[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stackOf = new Map<number, FlameFrame[]>();
  const framesOf = (id: number): FlameFrame[] => {
    let frames = stackOf.get(id);
    if (frames === undefined) {
      const up = parent.get(id);
      const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
      // The root node is the graph's own root.
      const own = up === undefined ? [] : [{ name: functionName || '(anonymous)', detail: url ? `${url.replace(/^.*\/(packages|node_modules)\//, '$1/')}:${lineNumber + 1}` : '' }];
      frames = [...(up === undefined ? [] : framesOf(up)), ...own];
      stackOf.set(id, frames);
    }
    return frames;
  };
  const weights = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    if (byId.get(id)?.callFrame.functionName === '(idle)') continue;
    weights.set(id, (weights.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000);
  }
  return [...weights].map(([id, weight]) => ({ frames: framesOf(id), weight }));
}
