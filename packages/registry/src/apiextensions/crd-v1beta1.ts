/**
 * CustomResourceDefinitions as kube-apiserver 1.32 stores them: apiextensions.k8s.io/v1beta1
 * JSON. kapi serves v1 only and converts at the storage boundary, as kube's conversion does.
 * Reading (crdFromV1beta1): the spec-wide schema, subresources, printer columns and selectable fields move into
 * every version that has none of its own, columns' `JSONPath` becomes `jsonPath`, the webhook
 * settings of `conversion` move under `conversion.webhook`, `version` goes and a false
 * `preserveUnknownFields` is left out. Writing (crdToV1beta1) is the reverse.
 */
import type { KubeObject } from '@kapi/machinery';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function columnsToV1(columns: unknown): unknown {
  if (!Array.isArray(columns)) return columns;
  return columns.map((c: unknown) => {
    if (!isObj(c) || !('JSONPath' in c)) return c;
    const { JSONPath, ...rest } = c;
    return { ...rest, jsonPath: JSONPath };
  });
}

export function crdFromV1beta1(stored: KubeObject): KubeObject {
  const spec = stored['spec'];
  if (!isObj(spec)) return stored;
  const { version, validation, subresources, additionalPrinterColumns, selectableFields, conversion, ...rest } = spec;
  const versions = Array.isArray(rest['versions']) && rest['versions'].length > 0 ? (rest['versions'] as Obj[]) : typeof version === 'string' ? [{ name: version, served: true, storage: true }] : [];
  rest['versions'] = versions.map((v) => {
    const out: Obj = { ...v };
    if (out['schema'] === undefined && isObj(validation)) out['schema'] = validation;
    if (out['subresources'] === undefined && isObj(subresources)) out['subresources'] = subresources;
    if (out['additionalPrinterColumns'] === undefined && additionalPrinterColumns !== undefined) out['additionalPrinterColumns'] = additionalPrinterColumns;
    if (out['additionalPrinterColumns'] !== undefined) out['additionalPrinterColumns'] = columnsToV1(out['additionalPrinterColumns']);
    if (out['selectableFields'] === undefined && selectableFields !== undefined) out['selectableFields'] = selectableFields;
    return out;
  });
  if (isObj(conversion)) {
    const { webhookClientConfig, conversionReviewVersions, ...others } = conversion;
    const converted: Obj = { ...others };
    if (others['strategy'] === 'Webhook' || webhookClientConfig !== undefined) {
      converted['webhook'] = { ...(webhookClientConfig !== undefined ? { clientConfig: webhookClientConfig } : {}), ...(conversionReviewVersions !== undefined ? { conversionReviewVersions } : {}) };
    }
    rest['conversion'] = converted;
  }
  // v1's preserveUnknownFields is an omitempty bool: false is left out.
  if (rest['preserveUnknownFields'] === false) delete rest['preserveUnknownFields'];
  stored['spec'] = rest;
  return stored;
}

/** A v1beta1 printer column from a v1 one (the same fields; `jsonPath` is `JSONPath`, still last). */
function columnsToV1beta1(columns: unknown): unknown {
  if (!Array.isArray(columns)) return columns;
  return columns.map((c: unknown) => {
    if (!isObj(c) || !('jsonPath' in c)) return c;
    const { jsonPath, ...rest } = c;
    return { ...rest, JSONPath: jsonPath };
  });
}

/** Sets `key` when `value` is present (Go's omitempty for the pointers and slices involved). */
function put(out: Obj, key: string, value: unknown): void {
  if (value !== undefined) out[key] = value;
}

const PER_VERSION = ['schema', 'subresources', 'additionalPrinterColumns', 'selectableFields'] as const;

/**
 * A v1 CustomResourceDefinition, its fields in Go's order (see the storage codec), as kube
 * 1.32 writes it to etcd: apiextensions.k8s.io/v1beta1 with v1beta1's field order. `version`
 * is the first version's name; a per-version schema, subresources, printer columns or
 * selectable fields that every version shares move to the spec (the schema as `validation`);
 * `preserveUnknownFields` is always written.
 */
export function crdToV1beta1(crd: KubeObject): KubeObject {
  const spec = isObj(crd['spec']) ? crd['spec'] : {};
  const versions = Array.isArray(spec['versions']) ? (spec['versions'] as Obj[]) : [];
  const text = (value: unknown): string => JSON.stringify(value) ?? 'undefined';
  const shared = new Set<string>(versions.length === 0 ? [] : PER_VERSION.filter((field) => versions.every((v) => text(v[field]) === text(versions[0]![field]))));
  const hoisted = (field: (typeof PER_VERSION)[number]): unknown => (shared.has(field) ? versions[0]![field] : undefined);
  const out: Obj = {};
  put(out, 'group', spec['group']);
  put(out, 'version', versions[0]?.['name']);
  put(out, 'names', spec['names']);
  put(out, 'scope', spec['scope']);
  put(out, 'validation', hoisted('schema'));
  put(out, 'subresources', hoisted('subresources'));
  if (versions.length > 0) {
    out['versions'] = versions.map((v) => {
      const version: Obj = {};
      for (const key of ['name', 'served', 'storage', 'deprecated', 'deprecationWarning']) put(version, key, v[key]);
      for (const field of PER_VERSION) {
        if (!shared.has(field)) put(version, field, field === 'additionalPrinterColumns' ? columnsToV1beta1(v[field]) : v[field]);
      }
      return version;
    });
  }
  put(out, 'additionalPrinterColumns', columnsToV1beta1(hoisted('additionalPrinterColumns')));
  put(out, 'selectableFields', hoisted('selectableFields'));
  const conversion = spec['conversion'];
  if (isObj(conversion)) {
    const webhook = isObj(conversion['webhook']) ? conversion['webhook'] : {};
    const converted: Obj = {};
    put(converted, 'strategy', conversion['strategy']);
    put(converted, 'webhookClientConfig', webhook['clientConfig']);
    put(converted, 'conversionReviewVersions', webhook['conversionReviewVersions']);
    out['conversion'] = converted;
  }
  out['preserveUnknownFields'] = spec['preserveUnknownFields'] ?? false;
  return { ...crd, apiVersion: 'apiextensions.k8s.io/v1beta1', spec: out };
}
