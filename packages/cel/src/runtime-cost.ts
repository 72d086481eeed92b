/**
 * kube's runtime cost limit: cel-go's cost tracker (interpreter/runtimecost.go) with kube's
 * CallCost, re-created by hooking each node of a compiled program. A node adds what cel-go
 * charges for it when it is evaluated: identifiers and field selections 1, literals 0, list
 * and map literals 10 and 30, function calls their actual cost (function-costs.ts),
 * comprehensions their loop steps; when the running total passes the limit the evaluation
 * stops with cel-go's error.
 */
import type { Node } from './ast.js';
import type { DeclType } from './decl-type.js';
import { typedEquals } from './typed-equality.js';
import { children, walk } from './ast.js';
import { actualCostOf, actualSize, type ActualCost } from './function-costs.js';
import { LIST_CREATE_BASE_COST, MAP_CREATE_BASE_COST, STRING_TRAVERSAL_COST_FACTOR } from './cost-model.js';

/** cel-go's error when an evaluation passes its cost limit. */
export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';

export class CostLimitExceeded extends Error {
  constructor() { super(COST_LIMIT_EXCEEDED); }
}

/** The cost of one evaluation; set while a program evaluates (evaluation is synchronous). */
export class CostTracker {
  cost = 0;
  exceeded = false;
  constructor(readonly limit: number) {}
  add(n: number): void {
    this.cost += n;
    if (this.cost > this.limit) {
      this.exceeded = true;
      throw new CostLimitExceeded();
    }
  }
}

let current: CostTracker | undefined;

/** Runs `fn` with `tracker` counting the cost of the instrumented programs it evaluates. */
export function withTracker<T>(tracker: CostTracker, fn: () => T): T {
  const saved = current;
  current = tracker;
  try {
    return fn();
  } finally {
    current = saved;
  }
}

type Evaluate = (ev: unknown, ast: unknown, ctx: unknown) => unknown;
interface Slot { last: unknown }
/** What a node costs, given its value (operands are in their slots). */
type Charge = (v: unknown) => number;
interface MacroFrame { iterations: number; truthy: number }

const NAMESPACES = new Set(['format', 'sets', 'strings', 'ip', 'optional']);
const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
const str = (n: number): number => Math.ceil(n * STRING_TRAVERSAL_COST_FACTOR);

/**
 * Replaces node.evaluate by a counting wrapper. The engine resolves a node's evaluator on its
 * first call and stores it on the node (our setter keeps it as `inner`).
 */
function hook(node: Node, slot: Slot, charge: Charge, around?: (run: () => unknown) => unknown, result?: (v: unknown) => unknown): void {
  const proto = (Object.getPrototypeOf(node) as { evaluate: Evaluate }).evaluate;
  let inner: Evaluate = Object.prototype.hasOwnProperty.call(node, 'evaluate') ? (node as unknown as { evaluate: Evaluate }).evaluate : proto;
  const run = (ev: unknown, ast: unknown, ctx: unknown): unknown => (result ? result(inner.call(node, ev, ast, ctx)) : inner.call(node, ev, ast, ctx));
  const wrapper: Evaluate = function (ev, ast, ctx) {
    if (inner === proto) return proto.call(node, ev, ast, ctx);
    const t = current;
    if (t === undefined) return (slot.last = run(ev, ast, ctx));
    if (t.exceeded) throw new CostLimitExceeded();
    if (around) {
      return around(() => {
        const v = run(ev, ast, ctx);
        slot.last = v;
        t.add(charge(v));
        return v;
      });
    }
    const v = run(ev, ast, ctx);
    slot.last = v;
    t.add(charge(v));
    return v;
  };
  // Until the engine has stored the real evaluator an accessor catches the store; from then on a
  // plain property (faster to call through).
  const settle = (): void => { Object.defineProperty(node, 'evaluate', { value: wrapper, writable: true, configurable: true }); };
  if (inner === proto) {
    Object.defineProperty(node, 'evaluate', { get: () => wrapper, set: (f: Evaluate) => { inner = f; settle(); }, configurable: true });
  } else {
    settle();
  }
}

/**
 * Hooks every node of a checked program so evaluations under withTracker are costed. Returns
 * a function that forgets the operand values the hooks keep (call it after an evaluation, so
 * a cached program does not hold on to the last request's object).
 */
export function instrument(root: Node, declOf: (n: Node) => DeclType | undefined = () => undefined): () => void {
  const slots = new Map<Node, Slot>();
  const slot = (n: Node): Slot => slots.get(n) ?? slots.set(n, { last: undefined }).get(n)!;
  const namespaceIds = new Set<Node>();
  walk(root, (n) => {
    if (n.op === 'rcall') {
      const [, target] = n.args as unknown as [string, Node];
      if (target.op === 'id' && NAMESPACES.has(target.args as string)) namespaceIds.add(target);
    }
  });
  // The first body of a macro (predicate, or the transform of map(x, t)) counts its iterations.
  const frames = new Map<Node, () => MacroFrame | undefined>();

  walk(root, (n) => {
    const s = slot(n);
    const kids = children(n).map(slot);
    const frameOf = frames.get(n);
    const base = chargeFor(n, kids, namespaceIds, slot);
    const listEquality = n.op === '==' || n.op === '!=' ? orderFreeList(n, declOf) : undefined;
    // set and map lists compare without order: the engine's ordered answer is replaced
    const result = listEquality
      ? (v: unknown): unknown => (typeof v === 'boolean' ? typedEquals(kids[0]!.last, kids[1]!.last, listEquality) !== (n.op === '!=') : v)
      : undefined;
    const charge: Charge = frameOf
      ? (v) => {
        const f = frameOf();
        if (f) { f.iterations++; if (v === true) f.truthy++; }
        return base(v);
      }
      : base;
    if (n.op === 'rcall') {
      const [name, target, args] = n.args as unknown as [string, Node, Node[]];
      if (MACROS.has(name) && args[0]?.op === 'id' && args[1]) {
        let frame: MacroFrame | undefined;
        frames.set(args[1], () => frame);
        const range = slot(target);
        const macroCharge = macroCost(name, args.length, range, () => frame!);
        hook(n, s, (v) => charge(v) + macroCharge(v), (run) => {
          const saved = frame;
          frame = { iterations: 0, truthy: 0 };
          try { return run(); } finally { frame = saved; }
        });
        return;
      }
    }
    hook(n, s, charge, undefined, result);
  });
  const all = [...slots.values()];
  return () => {
    for (const x of all) x.last = undefined;
  };
}

/** The declared set/map list type when both sides of an equality are one. */
function orderFreeList(n: Node, declOf: (n: Node) => DeclType | undefined): DeclType | undefined {
  const [l, r] = n.args as unknown as [Node, Node];
  const t = declOf(l) ?? declOf(r);
  return t?.kind === 'list' && (t.listType === 'set' || t.listType === 'map') ? t : undefined;
}

function macroCost(name: string, argCount: number, range: Slot, frame: () => MacroFrame): Charge {
  return (v) => {
    const f = frame();
    const r = range.last;
    const total = Array.isArray(r) ? r.length : r instanceof Map ? r.size : f.iterations;
    const i = f.iterations;
    switch (name) {
      // accu = true; per element: @not_strictly_false(accu) (2) then accu && p (1); the
      // condition is checked once more when the loop stops early; result: accu (1)
      case 'all': return 3 * i + (v === false && i < total ? 2 : 0) + 1;
      // accu = false; per element: @not_strictly_false(!accu) (3) then accu || p (1)
      case 'exists': return 4 * i + (v === true && i < total ? 3 : 0) + 1;
      // per element: p ? accu + 1 (2) : accu (1); result: accu == 1 (2)
      case 'exists_one': return i + f.truthy + 2;
      // accu = [] (10); per element: accu + [t] (12); result: accu (1)
      case 'map': return argCount === 3 ? LIST_CREATE_BASE_COST + 12 * f.truthy + (i - f.truthy) + 1 : LIST_CREATE_BASE_COST + 12 * i + 1;
      // per element: p ? accu + [x] (13) : accu (1)
      default: return LIST_CREATE_BASE_COST + 13 * f.truthy + (i - f.truthy) + 1;
    }
  };
}

const zero: Charge = () => 0;
const unit: Charge = () => 1;

function chargeFor(n: Node, kids: Slot[], namespaceIds: ReadonlySet<Node>, slot: (n: Node) => Slot): Charge {
  switch (n.op) {
    case 'value': case '&&': case '||': case '?:': return zero;
    case 'id': return namespaceIds.has(n) ? zero : unit;
    case 'list': return () => LIST_CREATE_BASE_COST;
    case 'map': return () => MAP_CREATE_BASE_COST;
    case '==': case '!=': case '<': case '<=': case '>': case '>=': {
      const [l, r] = kids as [Slot, Slot];
      const equality = n.op === '==' || n.op === '!=';
      return () => {
        const lv = l.last;
        const rv = r.last;
        if (typeof lv === 'string' && typeof rv === 'string') {
          // ceil(n/10) of the shorter's code points; a UTF-16 length up to 10 gives the same answer
          const shortest = Math.min(lv.length, rv.length);
          return shortest <= 10 ? (shortest === 0 ? 0 : 1) : str(Math.min(actualSize(lv), actualSize(rv)));
        }
        if (equality || lv instanceof Uint8Array) return str(Math.min(actualSize(lv), actualSize(rv)));
        return 1;
      };
    }
    case '+': {
      const [l, r] = kids as [Slot, Slot];
      return () => {
        const lv = l.last;
        return typeof lv === 'string' || lv instanceof Uint8Array ? str(actualSize(lv) + actualSize(r.last)) : 1;
      };
    }
    case 'in': {
      const c = kids[1]!;
      return () => (Array.isArray(c.last) ? c.last.length : 1);
    }
    case 'call': {
      const [name, args] = n.args as unknown as [string, Node[]];
      if (name === 'has') {
        // presence tests are free; cel-go charges the operand's selections, the engine evaluates only its root
        let depth = 0;
        for (let x: Node = args[0]!; x.op === '.' || x.op === '.?'; x = (x.args as unknown as [Node])[0]) depth++;
        const extra = Math.max(0, depth - 1);
        return () => extra;
      }
      if (name === 'dyn') return unit;
      return callCharge(actualCostOf(name, false), args[0] ? slot(args[0]) : undefined, args[1] ? slot(args[1]) : undefined);
    }
    case 'rcall': {
      const [name, target, args] = n.args as unknown as [string, Node, Node[]];
      if (namespaceIds.has(target)) {
        return callCharge(actualCostOf(`${target.args as string}.${name}`, false), args[0] ? slot(args[0]) : undefined, args[1] ? slot(args[1]) : undefined);
      }
      if (MACROS.has(name) && args[0]?.op === 'id') return zero;
      return callCharge(actualCostOf(name, true), slot(target), args[0] ? slot(args[0]) : undefined);
    }
    default: return unit; // '.', '.?', '[]', '[?]', '!_', '-_', arithmetic
  }
}

function callCharge(cost: ActualCost, a0: Slot | undefined, a1: Slot | undefined): Charge {
  return (v) => cost(a0?.last, a1?.last, v);
}
