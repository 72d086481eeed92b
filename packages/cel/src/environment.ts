/**
 * The CEL environment a rule compiles in: kube's base environment (the language with
 * optional types and kube's extension libraries) plus the rule's variables and the object
 * types their declared types need. One engine environment per distinct declaration, cached on
 * the declared types (they are immutable), so compiling many rules against one schema
 * registers its types once.
 */
import { Environment } from '@marcbachmann/cel-js';
import { optionalType, type DeclType } from './decl-type.js';
import { setKnownFunctions } from './errors.js';
import { typedEquals } from './typed-equality.js';
import { objectClassFor, CelObject, toCelValue } from './values.js';

/** The variables a rule sees. */
export interface RuleEnv {
  /** The type of `self` (CRD rules); absent when the rule has no `self`. */
  readonly self?: DeclType;
  /** Declare `oldSelf` (transition rules) with the type of `self`. */
  readonly oldSelf?: boolean;
  /**
   * With oldSelf: declare it as optional<self's type> (a rule's optionalOldSelf): bound to
   * optional.of(old) on update and optional.none() when there is no old value.
   */
  readonly optionalOldSelf?: boolean;
  /** Further variables by name (VAP: object, oldObject, request, params, …). */
  readonly vars?: Readonly<Record<string, DeclType>>;
}

/** Hooks the kube libraries register into a base environment (see library/). */
export type LibraryInstaller = (env: Environment) => void;

const installers: LibraryInstaller[] = [];
let base: Environment | undefined;

/** Adds a library to the base environment; only before the first compile. */
export function registerLibrary(install: LibraryInstaller): void {
  if (base) throw new Error('CEL libraries must be registered before the first compile');
  installers.push(install);
}

function baseEnvironment(): Environment {
  if (!base) {
    base = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: true });
    for (const install of installers) install(base);
    const names = new Set<string>(['has', 'all', 'exists', 'exists_one', 'map', 'filter']);
    for (const f of base.getDefinitions().functions) names.add(f.receiverType ? `${f.receiverType}.${f.name}` : f.name).add(f.name);
    setKnownFunctions(names);
  }
  return base;
}

/** A compiled environment: the engine environment and how to bind values to its variables. */
export interface BoundEnvironment {
  /** Unique per environment: part of the compiled-program cache key. */
  readonly id: number;
  readonly engine: Environment;
  readonly variables: ReadonlyMap<string, DeclType>;
  /** The declared variables whose names contain a dot (resolved before field selection). */
  readonly qualifiedNames: ReadonlySet<string>;
  /** Converts a JSON activation to the engine's values for the declared variables. */
  bind(activation: Readonly<Record<string, unknown>>): Record<string, unknown>;
}

const cache = new WeakMap<DeclType, Map<string, BoundEnvironment>>();
const noSelf = new Map<string, BoundEnvironment>();
let typeCounter = 0;

function envKey(env: RuleEnv): string {
  return `${env.oldSelf ? 'o' : ''}${env.optionalOldSelf ? '?' : ''}|${Object.keys(env.vars ?? {}).join(',')}`;
}

/** The bound environment for `env`; built once per declaration. */
export function environmentFor(env: RuleEnv): BoundEnvironment {
  const variables = new Map<string, DeclType>();
  if (env.self) variables.set('self', env.self);
  if (env.self && env.oldSelf) variables.set('oldSelf', env.optionalOldSelf ? optionalType(env.self) : env.self);
  for (const [name, t] of Object.entries(env.vars ?? {})) variables.set(name, t);
  // Cache on the first declared type (self's, or the first variable's); the variables are
  // compared on a hit, so environments with the same names but other types do not collide.
  const anchor = variables.values().next().value;
  const bucket = anchor ? (cache.get(anchor) ?? cache.set(anchor, new Map()).get(anchor)!) : noSelf;
  const key = envKey(env);
  const hit = bucket.get(key);
  if (hit && sameVars(hit.variables, variables)) return hit;
  const built = build(variables);
  bucket.set(key, built);
  return built;
}

function sameVars(a: ReadonlyMap<string, DeclType>, b: ReadonlyMap<string, DeclType>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

function build(variables: ReadonlyMap<string, DeclType>): BoundEnvironment {
  const engine = baseEnvironment().clone({ enableOptionalTypes: true, homogeneousAggregateLiterals: true });
  const names = new Map<DeclType, string>();
  const typeString = (t: DeclType, path: string): string => {
    switch (t.kind) {
      case 'list': return `list<${typeString(t.elem!, path + '.0items')}>`;
      case 'map': return `map<string, ${typeString(t.elem!, path + '.0values')}>`;
      case 'object': {
        const known = names.get(t);
        if (known) return known;
        const name = path;
        names.set(t, name);
        const fields: Record<string, string> = {};
        for (const [fname, f] of t.fields ?? []) fields[fname] = typeString(f.type, `${path}.${fname}`);
        const ctor = objectClassFor(t, name.replace(/[^A-Za-z0-9_]/g, '_'));
        engine.registerType(name, {
          ctor,
          fields,
          convert: (v: unknown) => (v instanceof CelObject ? v : new ctor(t, v as Record<string, unknown>)),
        } as never);
        // Objects compare field by field (cel-go's struct equality), also inside lists.
        engine.registerOperator(`${name} == ${name}`, (a: unknown, b: unknown) => typedEquals(a, b, t));
        return name;
      }
      case 'null': return 'null_type';
      case 'optional': return `optional<${typeString(t.elem!, path)}>`;
      case 'opaque': return t.typeName!;
      case 'duration': return 'google.protobuf.Duration';
      case 'timestamp': return 'google.protobuf.Timestamp';
      default: return t.kind;
    }
  };
  const id = typeCounter++;
  for (const [name, t] of variables) engine.registerVariable(name, typeString(t, `${name}Type${id}`));
  return {
    id,
    engine,
    variables,
    qualifiedNames: new Set([...variables.keys()].filter((name) => name.includes('.'))),
    bind(activation) {
      const out: Record<string, unknown> = {};
      for (const [name, t] of variables) {
        const v = activation[name];
        if (v !== undefined || t.kind === 'optional') out[name] = toCelValue(v, t);
      }
      return out;
    },
  };
}
