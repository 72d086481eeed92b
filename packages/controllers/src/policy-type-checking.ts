/**
 * kube's ValidatingAdmissionPolicy type checker (admission/plugin/policy/validating
 * typechecking.go): each validation's expression and messageExpression compiled with
 * `object`/`oldObject` typed by the schema of every kind the policy's resourceRules name
 * (explicit groups, versions and resources only; at most 10 kinds, sorted by group, version,
 * kind) and `params` typed by the paramKind's schema. A compile error becomes a warning
 * `<group>/<version>, Kind=<Kind>: <cel error>` per kind; warnings never change what the
 * policy does.
 */
import { compileRule, declTypeFromSchema, DynType, objectType, type DeclField, type DeclType } from '@kapi/cel';
import { resolveSchema, type JSONSchemaProps, type SchemaDefinitions } from '@kapi/machinery';
import { definitions as builtinSchemaDefinitions, type Registry, type RestResource } from '@kapi/registry';

const MAX_TYPES_TO_CHECK = 10;

export interface ExpressionWarning {
  readonly fieldRef: string;
  readonly warning: string;
}

interface PolicyForChecking {
  readonly spec?: {
    readonly paramKind?: { readonly apiVersion?: string; readonly kind?: string } | null;
    readonly matchConstraints?: { readonly resourceRules?: readonly { readonly apiGroups?: readonly string[]; readonly apiVersions?: readonly string[]; readonly resources?: readonly string[] }[] } | null;
    readonly validations?: readonly { readonly expression?: string; readonly messageExpression?: string }[] | null;
    readonly variables?: readonly { readonly name?: string; readonly expression?: string }[] | null;
  };
}

interface Kind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly resource: RestResource;
}

const gvkText = (k: { group: string; version: string; kind: string }) => `${k.group}/${k.version}, Kind=${k.kind}`;

/** The schema with every `$ref`/`allOf` inlined (recursive references dropped: no CEL type). */
function inline(schema: JSONSchemaProps, definitions: SchemaDefinitions, seen: readonly JSONSchemaProps[] = []): JSONSchemaProps {
  const resolved = resolveSchema(schema, definitions);
  if (seen.includes(resolved) || seen.length > 24) return {};
  const path = [...seen, resolved];
  const out: JSONSchemaProps = { ...resolved };
  if (resolved.properties !== undefined) {
    out.properties = Object.fromEntries(Object.entries(resolved.properties).map(([k, v]) => [k, inline(v, definitions, path)]));
  }
  if (resolved.items !== undefined && !Array.isArray(resolved.items)) out.items = inline(resolved.items as JSONSchemaProps, definitions, path);
  if (resolved.additionalProperties !== undefined && typeof resolved.additionalProperties === 'object') {
    out.additionalProperties = inline(resolved.additionalProperties, definitions, path);
  }
  return out;
}

const typeCache = new WeakMap<JSONSchemaProps, DeclType | null>();

/** The declared type of a served kind's objects, or undefined when it has no schema. */
function declTypeOf(resource: RestResource): DeclType | undefined {
  const schema = resource.definition.versions.find((v) => v.name === resource.version)?.schema;
  if (schema === undefined) return undefined;
  const cached = typeCache.get(schema);
  if (cached !== undefined) return cached ?? undefined;
  const inlined = inline(schema, builtinSchemaDefinitions);
  const metadata = inlined.properties?.['metadata']?.properties;
  // Built-in kinds bring ObjectMeta whole; a custom resource gets kube's apiVersion/kind/name/generateName.
  const complete = metadata?.['name']?.type === 'string' && metadata['generateName']?.type === 'string';
  const type = declTypeFromSchema(inlined, { isResourceRoot: !complete }) ?? null;
  typeCache.set(schema, type);
  return type ?? undefined;
}

function splitApiVersion(apiVersion: string): { group: string; version: string } | undefined {
  const parts = apiVersion.split('/');
  if (parts.length === 1 && parts[0] !== '') return { group: '', version: parts[0]! };
  if (parts.length === 2 && parts[1] !== '') return { group: parts[0]!, version: parts[1]! };
  return undefined;
}

/** kube's typesToCheck: the kinds of the explicitly named group/version/resources, at most 10, sorted. */
function kindsToCheck(policy: PolicyForChecking, resources: readonly RestResource[]): Kind[] {
  const found = new Map<string, Kind>();
  for (const rule of policy.spec?.matchConstraints?.resourceRules ?? []) {
    const groups = rule.apiGroups ?? [];
    const versions = rule.apiVersions ?? [];
    if (groups.length === 0 || groups.some((g) => g.includes('*')) || versions.length === 0 || versions.some((v) => v.includes('*'))) continue;
    const plurals = (rule.resources ?? []).filter((r) => !/[*/]/.test(r));
    if (plurals.length === 0) continue;
    let count = 0;
    for (const group of [...groups].sort()) {
      for (const version of [...versions].sort()) {
        for (const plural of [...plurals].sort()) {
          const resource = resources.find((r) => r.definition.group === group && r.version === version && r.definition.plural === plural);
          if (resource === undefined) continue;
          found.set(`${group}/${version}/${resource.definition.kind}`, { group, version, kind: resource.definition.kind, resource });
          if (++count === MAX_TYPES_TO_CHECK) return sortKinds([...found.values()]);
        }
      }
    }
  }
  return sortKinds([...found.values()]);
}

function sortKinds(kinds: Kind[]): Kind[] {
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return kinds.sort((a, b) => cmp(a.group, b.group) || cmp(a.version, b.version) || cmp(a.kind, b.kind));
}

/** The warnings for `policy`'s expressions; empty when everything type-checks. Never throws. */
export function typeCheckPolicy(policy: PolicyForChecking, registry: Pick<Registry, 'resources'>): ExpressionWarning[] {
  const resources = registry.resources;
  const kinds = kindsToCheck(policy, resources).map((k) => ({ ...k, type: declTypeOf(k.resource) })).filter((k) => k.type !== undefined);
  if (kinds.length === 0) return [];
  let paramsType: DeclType | undefined;
  const paramKind = policy.spec?.paramKind;
  if (paramKind !== undefined && paramKind !== null) {
    const gv = splitApiVersion(paramKind.apiVersion ?? '');
    const resource = gv === undefined ? undefined : resources.find((r) => r.definition.group === gv.group && r.version === gv.version && r.definition.kind === paramKind.kind);
    paramsType = resource === undefined ? undefined : declTypeOf(resource);
  }
  const check = (expression: string): string => {
    const messages: string[] = [];
    for (const kind of kinds) {
      const vars = envFor(kind.type!, paramsType, policy.spec?.variables ?? []);
      const result = compileRule(expression, { vars });
      if (!result.ok) messages.push(`${gvkText(kind)}: ${result.errors.join('\n')}\n`);
    }
    return messages.join('\n');
  };
  const warnings: ExpressionWarning[] = [];
  (policy.spec?.validations ?? []).forEach((validation, i) => {
    const expressionWarning = check(validation.expression ?? '');
    if (expressionWarning !== '') warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: expressionWarning });
    if (!validation.messageExpression) return;
    const messageWarning = check(validation.messageExpression);
    if (messageWarning !== '') warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: messageWarning });
  });
  return warnings;
}

/** The typed environment: object/oldObject by the kind, params by the paramKind (undeclared when unknown), variables dyn. */
function envFor(objectType_: DeclType, paramsType: DeclType | undefined, variables: readonly { readonly name?: string }[]): Record<string, DeclType> {
  const fields = new Map<string, DeclField>();
  for (const v of variables) if (v.name) fields.set(v.name, { name: v.name, jsonName: v.name, type: DynType, required: false });
  return {
    object: objectType_,
    oldObject: objectType_,
    request: DynType,
    namespaceObject: DynType,
    variables: objectType(fields),
    ...(paramsType !== undefined ? { params: paramsType } : {}),
  };
}
