/**
 * kube's static cost estimate of a checked expression: cel-go's checker/cost.go coster (as of
 * the cel-go kube 1.32 uses, with has() costing nothing) walked over the engine's AST, with
 * kube's library estimates (function-costs.ts) and kube's size estimator: the size of a value
 * reached by a path from a variable is its declared type's maxElements.
 */
import type { DeclType } from './decl-type.js';
import type { Node } from './ast.js';
import {
  LIST_CREATE_BASE_COST, MAP_CREATE_BASE_COST, SELECT_AND_IDENT_COST, STRING_TRAVERSAL_COST_FACTOR,
  UNKNOWN_SIZE, ZERO, add, byFactor, fixed, multiply, sumRanges, union, type Range,
} from './cost-model.js';
import { estimateFunctionCost, type ArgInfo } from './function-costs.js';

type TypeKind = 'string' | 'bytes' | 'list' | 'map' | 'message' | 'scalar' | 'dyn' | 'other';

const SCALARS = new Set(['bool', 'int', 'uint', 'double', 'google.protobuf.Duration', 'google.protobuf.Timestamp']);

export function typeKind(name: string | undefined): TypeKind {
  if (!name) return 'other';
  if (name === 'string') return 'string';
  if (name === 'bytes') return 'bytes';
  if (name === 'dyn') return 'dyn';
  if (name.startsWith('list<') || name === 'list') return 'list';
  if (name.startsWith('map<') || name === 'map') return 'map';
  if (SCALARS.has(name)) return 'scalar';
  if (name.startsWith('optional<')) return typeKind(name.slice(9, -1)) === 'scalar' ? 'scalar' : 'other';
  if (/^[A-Za-z_][\w.@]*$/.test(name) && !['null_type', 'type'].includes(name)) return 'message';
  return 'other';
}

const NAMESPACES = new Set(['format', 'sets', 'strings', 'ip', 'optional']);
const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

interface LocalVar {
  readonly path: readonly string[] | undefined;
  readonly size: Range | undefined;
  readonly typeName?: string | undefined;
}

class Coster {
  readonly paths = new Map<Node, readonly string[]>();
  readonly sizes = new Map<Node, Range>();
  readonly entrySizes = new Map<Node, Range>();
  readonly locals = new Map<string, LocalVar[]>();

  constructor(private readonly vars: ReadonlyMap<string, DeclType>) {}

  typeName(n: Node): string | undefined {
    return n.checkedType?.name ?? (n.op === 'id' ? this.peek(n.args as string)?.typeName : undefined);
  }

  peek(name: string): LocalVar | undefined {
    const s = this.locals.get(name);
    return s && s.length > 0 ? s[s.length - 1] : undefined;
  }
  push(name: string, v: LocalVar): void { (this.locals.get(name) ?? this.locals.set(name, []).get(name)!).push(v); }
  pop(name: string): void { this.locals.get(name)?.pop(); }

  path(n: Node): readonly string[] | undefined {
    if (n.op === 'id') {
      const local = this.peek(n.args as string);
      if (local) return local.path;
    }
    return this.paths.get(n);
  }

  declAt(path: readonly string[]): DeclType | undefined {
    let t = this.vars.get(path[0]!);
    for (const step of path.slice(1)) {
      if (!t) return undefined;
      if (step === '@items' || step === '@values') t = t.elem;
      else if (step === '@keys') t = t.key;
      else if (t.kind === 'optional') t = t.elem?.fields?.get(step)?.type;
      else t = t.fields?.get(step)?.type;
    }
    return t;
  }

  /** cel-go's computeSize. */
  size(n: Node): Range | undefined {
    const computed = this.sizes.get(n);
    if (computed) return computed;
    if (n.op === 'value') {
      if (typeof n.args === 'string') return fixed(Array.from(n.args).length);
      if (n.args instanceof Uint8Array) return fixed(n.args.length);
      return fixed(1);
    }
    if (n.op === 'list') return fixed((n.args as Node[]).length);
    if (n.op === 'map') return fixed((n.args as unknown[]).length);
    const path = this.path(n);
    if (path && path.length > 0 && this.vars.has(path[0]!)) {
      const t = this.declAt(path);
      if (t) return { min: 0, max: t.maxElements };
    }
    if (typeKind(this.typeName(n)) === 'scalar') return fixed(1);
    if (n.op === 'id') return this.peek(n.args as string)?.size;
    return undefined;
  }

  sizeOrUnknown(n: Node): Range { return this.size(n) ?? UNKNOWN_SIZE; }

  argInfo(n: Node): ArgInfo {
    const path = this.path(n);
    return {
      node: n,
      typeName: this.typeName(n),
      size: this.sizeOrUnknown(n),
      elementSize: () => {
        const entry = this.entrySizes.get(n);
        if (entry) return entry;
        if (path && this.vars.has(path[0]!)) {
          const t = this.declAt([...path, '@items']);
          if (t) return { min: 0, max: t.maxElements };
        }
        const name = this.typeName(n);
        const elem = name?.startsWith('list<') ? name.slice(5, -1) : undefined;
        return typeKind(elem) === 'scalar' ? fixed(1) : UNKNOWN_SIZE;
      },
    };
  }

  cost(n: Node): Range {
    switch (n.op) {
      case 'value': return ZERO;
      case 'id': {
        const local = this.peek(n.args as string);
        this.paths.set(n, local?.path ?? [n.args as string]);
        return fixed(SELECT_AND_IDENT_COST);
      }
      case '.': {
        const [operand, field] = n.args as unknown as [Node, string];
        let sum = this.cost(operand);
        const k = typeKind(this.typeName(operand));
        if (k === 'map' || k === 'message') sum = add(sum, fixed(SELECT_AND_IDENT_COST));
        const p = this.path(operand);
        if (p) this.paths.set(n, [...p, field]);
        return sum;
      }
      case '.?': {
        const [operand] = n.args as unknown as [Node, string];
        return add(this.cost(operand), fixed(1));
      }
      case '[]': case '[?]': {
        const [container, index] = n.args as unknown as [Node, Node];
        const sum = add(this.cost(container), this.cost(index));
        if (n.op === '[]') {
          const k = typeKind(this.typeName(container));
          const p = this.path(container);
          if (p && (k === 'list' || k === 'map')) this.paths.set(n, [...p, k === 'list' ? '@items' : '@values']);
          const entry = this.entrySizes.get(container);
          if (entry) this.sizes.set(n, entry);
        }
        return add(sum, fixed(1));
      }
      case 'list': {
        const elems = n.args as unknown as Node[];
        let item: Range = elems.length === 0 ? ZERO : { min: Number.MAX_VALUE, max: 0 };
        let sum = ZERO;
        for (const e of elems) { sum = add(sum, this.cost(e)); item = union(item, this.sizeOrUnknown(e)); }
        this.entrySizes.set(n, item);
        return add(sum, fixed(LIST_CREATE_BASE_COST));
      }
      case 'map': {
        let sum = ZERO;
        for (const [k, v] of n.args as unknown as [Node, Node][]) sum = add(add(sum, this.cost(k)), this.cost(v));
        return add(sum, fixed(MAP_CREATE_BASE_COST));
      }
      case '&&': case '||': {
        const [l, r] = n.args as unknown as [Node, Node];
        const lc = this.cost(l);
        const rc = this.cost(r);
        return { min: lc.min, max: add(lc, rc).max };
      }
      case '?:': {
        const [c, t, f] = n.args as unknown as [Node, Node, Node];
        const cc = this.cost(c);
        const tc = this.cost(t);
        const fc = this.cost(f);
        this.sizes.set(n, union(this.sizeOrUnknown(t), this.sizeOrUnknown(f)));
        return add(cc, union(tc, fc));
      }
      case '!_': case '-_': return add(this.cost(n.args as unknown as Node), fixed(1));
      case 'call': return this.costCall(n);
      case 'rcall': return this.costReceiverCall(n);
      default: return this.costBinary(n);
    }
  }

  costBinary(n: Node): Range {
    const [l, r] = n.args as unknown as [Node, Node];
    const args = add(this.cost(l), this.cost(r));
    const lk = typeKind(this.typeName(l));
    switch (n.op) {
      case '==': case '!=':
        return add(this.equalsCost(l, r), args);
      case '<': case '<=': case '>': case '>=':
        if (lk === 'string' || lk === 'bytes') return add(this.equalsCost(l, r), args);
        return add(fixed(1), args);
      case 'in':
        if (typeKind(this.typeName(r)) === 'list') return add(byFactor(this.sizeOrUnknown(r), 1), args);
        return add(fixed(1), args);
      case '+': {
        const k = typeKind(this.typeName(n));
        if (k === 'string' || k === 'bytes' || k === 'list') {
          const size = add(this.sizeOrUnknown(l), this.sizeOrUnknown(r));
          this.sizes.set(n, size);
          if (k === 'list') return add(fixed(1), args);
          return add(byFactor(size, STRING_TRAVERSAL_COST_FACTOR), args);
        }
        return add(fixed(1), args);
      }
      default:
        return add(fixed(1), args);
    }
  }

  equalsCost(l: Node, r: Node): Range {
    const ls = this.sizeOrUnknown(l);
    const rs = this.sizeOrUnknown(r);
    const smallestMax = Math.min(ls.max, rs.max);
    return byFactor({ min: smallestMax > 0 ? 1 : 0, max: smallestMax }, STRING_TRAVERSAL_COST_FACTOR);
  }

  costCall(n: Node): Range {
    const [name, args] = n.args as unknown as [string, Node[]];
    if (name === 'has') {
      const sel = args[0]!;
      // presence tests cost nothing (kube: PresenceTestHasCost(false)); the operand does.
      return sel.op === '.' || sel.op === '.?' ? this.cost((sel.args as unknown as [Node])[0]) : this.cost(sel);
    }
    if (name === 'dyn' && args.length === 1) {
      const c = this.cost(args[0]!);
      const s = this.size(args[0]!);
      if (s) this.sizes.set(n, s);
      return add(fixed(1), c);
    }
    const argCosts = args.map((a) => this.cost(a));
    const est = estimateFunctionCost(name, undefined, args.map((a) => this.argInfo(a)), this.typeName(n));
    if (est.resultSize) this.sizes.set(n, est.resultSize);
    return add(est.cost, sumRanges(argCosts));
  }

  costReceiverCall(n: Node): Range {
    const [name, target, args] = n.args as unknown as [string, Node, Node[]];
    if (target.op === 'id' && NAMESPACES.has(target.args as string) && !this.peek(target.args as string)) {
      // A namespaced function (format.dns1123Label(), sets.contains(...)): one global call.
      const argCosts = args.map((a) => this.cost(a));
      const est = estimateFunctionCost(`${target.args as string}.${name}`, undefined, args.map((a) => this.argInfo(a)), this.typeName(n));
      if (est.resultSize) this.sizes.set(n, est.resultSize);
      return add(est.cost, sumRanges(argCosts));
    }
    const tk = typeKind(this.typeName(target));
    if (MACROS.has(name) && args[0]?.op === 'id' && (tk === 'list' || tk === 'map' || tk === 'dyn')) return this.costMacro(n, name, target, args, tk);
    const targetCost = this.cost(target);
    const argCosts = args.map((a) => this.cost(a));
    const est = estimateFunctionCost(name, this.argInfo(target), args.map((a) => this.argInfo(a)), this.typeName(n));
    if (est.resultSize) this.sizes.set(n, est.resultSize);
    return add(add(targetCost, est.cost), sumRanges(argCosts));
  }

  costMacro(n: Node, name: string, range: Node, args: Node[], rangeKind: TypeKind): Range {
    const rangeCost = this.cost(range);
    const iterVar = args[0]!.args as string;
    const rangePath = this.path(range);
    const entry = this.entrySizes.get(range);
    const isList = rangeKind !== 'map';
    const rangeType = this.typeName(range);
    this.push(iterVar, {
      path: rangePath ? [...rangePath, isList ? '@items' : '@keys'] : undefined,
      size: isList ? entry : undefined,
      typeName: rangeType?.startsWith('list<') ? rangeType.slice(5, -1) : rangeType?.startsWith('map<') ? rangeType.slice(4, rangeType.indexOf(',')) : undefined,
    });
    const bodies = args.slice(1).map((a) => this.cost(a));
    this.pop(iterVar);
    const rangeCnt = this.sizeOrUnknown(range);
    let init: Range;
    let perIteration: Range;
    let result: Range;
    const p = bodies[0]!;
    switch (name) {
      case 'all':
        // accu = true; cond: @not_strictly_false(accu); step: accu && p; result: accu
        init = ZERO; perIteration = add(fixed(2), { min: 1, max: 1 + p.max }); result = fixed(1); break;
      case 'exists':
        // accu = false; cond: @not_strictly_false(!accu); step: accu || p; result: accu
        init = ZERO; perIteration = add(fixed(3), { min: 1, max: 1 + p.max }); result = fixed(1); break;
      case 'exists_one':
        // accu = 0; cond: true; step: p ? accu + 1 : accu; result: accu == 1
        init = ZERO; perIteration = add(p, { min: 1, max: 2 }); result = fixed(2); break;
      case 'map':
        // accu = []; step: accu + [t] (or p ? accu + [t] : accu); result: accu
        init = fixed(LIST_CREATE_BASE_COST);
        perIteration = bodies.length === 1
          ? add(fixed(12), p)
          : add(p, union(add(fixed(12), bodies[1]!), fixed(1)));
        result = fixed(1);
        this.sizes.set(n, rangeCnt);
        break;
      default: // filter: step: p ? accu + [x] : accu
        init = fixed(LIST_CREATE_BASE_COST);
        perIteration = add(p, union(fixed(13), fixed(1)));
        result = fixed(1);
        this.sizes.set(n, rangeCnt);
    }
    return add(add(add(rangeCost, init), result), multiply(rangeCnt, perIteration));
  }
}

/**
 * The estimated cost range of a checked expression with the given variables, and the
 * declared type of each node reached by a path from a variable (for typed equality).
 */
export function estimateCost(root: Node, vars: ReadonlyMap<string, DeclType>): { cost: Range; declOf: (n: Node) => DeclType | undefined } {
  const coster = new Coster(vars);
  const cost = coster.cost(root);
  return {
    cost,
    declOf: (n) => {
      const p = coster.paths.get(n);
      return p && vars.has(p[0]!) ? coster.declAt(p) : undefined;
    },
  };
}
