/**
 * kube's OpenAPI v2 aggregation (kube-openapi's aggregator package, as kube-aggregator uses
 * it): an aggregated API server's Swagger document keeps only the paths of its
 * group-version (`/apis/<group>/<version>/`) and the definitions they still need, then is
 * merged into this server's document. A path already present is left as it is; a definition
 * (or shared parameter) of the same name and the same content is shared; one whose content
 * differs is renamed `<name>_v2` (`_v3`, ...) in the merged document together with every
 * reference to it.
 */

type Json = Record<string, unknown>;

const DEFINITION_PREFIX = '#/definitions/';
const PARAMETER_PREFIX = '#/parameters/';

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every `$ref` string under `value`. */
function collectRefs(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const v of value) collectRefs(v, into);
  else if (isObject(value)) {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') into.add(v);
      else collectRefs(v, into);
    }
  }
  return into;
}

/** The definitions a document names anywhere (paths, definitions, parameters, responses). */
function usedDefinitions(doc: Json): Set<string> {
  const used = new Set<string>();
  for (const ref of collectRefs({ paths: doc['paths'], definitions: doc['definitions'], parameters: doc['parameters'], responses: doc['responses'] }, new Set())) {
    if (ref.startsWith(DEFINITION_PREFIX)) used.add(ref.slice(DEFINITION_PREFIX.length));
  }
  return used;
}

/**
 * kube's FilterSpecByPathsWithoutSideEffects: the paths starting with one of `prefixes`, and
 * the definitions minus those only the dropped paths used. `doc` is not changed.
 */
export function filterSwaggerPaths(doc: Json, prefixes: readonly string[]): Json {
  if (!isObject(doc['paths'])) return doc;
  const before = usedDefinitions(doc);
  const paths: Json = {};
  for (const [path, item] of Object.entries(doc['paths'])) if (prefixes.some((p) => path.startsWith(p))) paths[path] = item;
  const kept: Json = { ...doc, paths };
  const after = usedDefinitions(kept);
  const definitions: Json = {};
  for (const [name, schema] of Object.entries(isObject(doc['definitions']) ? doc['definitions'] : {})) {
    if (after.has(name) || !before.has(name)) definitions[name] = schema;
  }
  return { ...kept, definitions };
}

/** JSON with sorted keys: equal for equal content whatever the key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (!isObject(value)) return JSON.stringify(value) ?? 'null';
  return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
}

/** `value` with each `$ref` in `renames` replaced. */
function rewriteRefs(value: unknown, renames: ReadonlyMap<string, string>): unknown {
  if (renames.size === 0) return value;
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, renames));
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) out[key] = key === '$ref' && typeof v === 'string' ? (renames.get(v) ?? v) : rewriteRefs(v, renames);
  return out;
}

/** For each of `source`'s entries in `section`: its name in the merged document (renamed when `dest` has a different one). */
function renamesFor(dest: Json, source: Json, section: 'definitions' | 'parameters', prefix: string): Map<string, string> {
  const renames = new Map<string, string>();
  const existing = isObject(dest[section]) ? dest[section] : {};
  const incoming = isObject(source[section]) ? source[section] : {};
  for (const [name, value] of Object.entries(incoming)) {
    if (!Object.hasOwn(existing, name) || canonical(existing[name]) === canonical(value)) continue;
    let n = 2;
    while (Object.hasOwn(existing, `${name}_v${n}`) || Object.hasOwn(incoming, `${name}_v${n}`)) n++;
    renames.set(`${prefix}${name}`, `${prefix}${name}_v${n}`);
  }
  return renames;
}

/**
 * kube's MergeSpecsIgnorePathConflictRenamingDefinitionsAndParameters: `source`'s paths not
 * in `dest`, its definitions and parameters (renamed where they clash), added to a copy of
 * `dest`.
 */
export function mergeSwagger(dest: Json, source: Json): Json {
  const renames = new Map([...renamesFor(dest, source, 'definitions', DEFINITION_PREFIX), ...renamesFor(dest, source, 'parameters', PARAMETER_PREFIX)]);
  const renamed = (name: string, prefix: string) => (renames.get(`${prefix}${name}`) ?? `${prefix}${name}`).slice(prefix.length);
  const paths: Json = { ...(isObject(dest['paths']) ? dest['paths'] : {}) };
  for (const [path, item] of Object.entries(isObject(source['paths']) ? source['paths'] : {})) {
    if (!Object.hasOwn(paths, path)) paths[path] = rewriteRefs(item, renames);
  }
  const definitions: Json = { ...(isObject(dest['definitions']) ? dest['definitions'] : {}) };
  for (const [name, schema] of Object.entries(isObject(source['definitions']) ? source['definitions'] : {})) {
    const target = renamed(name, DEFINITION_PREFIX);
    if (!Object.hasOwn(definitions, target)) definitions[target] = rewriteRefs(schema, renames);
  }
  const out: Json = { ...dest, paths, definitions };
  if (isObject(source['parameters']) || isObject(dest['parameters'])) {
    const parameters: Json = { ...(isObject(dest['parameters']) ? dest['parameters'] : {}) };
    for (const [name, parameter] of Object.entries(isObject(source['parameters']) ? source['parameters'] : {})) {
      const target = renamed(name, PARAMETER_PREFIX);
      if (!Object.hasOwn(parameters, target)) parameters[target] = rewriteRefs(parameter, renames);
    }
    out['parameters'] = parameters;
  }
  return out;
}

/** Paths and definitions in sorted order (as kube's document prints them). */
export function sortedSwagger(doc: Json): Json {
  const sorted = (value: unknown): Json => {
    const obj = isObject(value) ? value : {};
    return Object.fromEntries(Object.keys(obj).sort().map((k) => [k, obj[k]]));
  };
  return { ...doc, paths: sorted(doc['paths']), definitions: sorted(doc['definitions']) };
}
