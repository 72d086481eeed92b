/**
 * CustomResourceDefinitions as kube-apiserver 1.32 stores them: apiextensions.k8s.io/v1beta1.
 * kapi serves and stores v1 only; this reads a stored v1beta1 object into v1's form, as kube's
 * conversion does: the spec-wide schema, subresources and printer columns move into every
 * version that has none of its own, columns' `JSONPath` becomes `jsonPath`, the webhook
 * settings of `conversion` move under `conversion.webhook`, `version` goes and a false
 * `preserveUnknownFields` is left out.
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
  const { version, validation, subresources, additionalPrinterColumns, conversion, ...rest } = spec;
  const versions = Array.isArray(rest['versions']) && rest['versions'].length > 0 ? (rest['versions'] as Obj[]) : typeof version === 'string' ? [{ name: version, served: true, storage: true }] : [];
  rest['versions'] = versions.map((v) => {
    const out: Obj = { ...v };
    if (out['schema'] === undefined && isObj(validation)) out['schema'] = validation;
    if (out['subresources'] === undefined && isObj(subresources)) out['subresources'] = subresources;
    if (out['additionalPrinterColumns'] === undefined && additionalPrinterColumns !== undefined) out['additionalPrinterColumns'] = additionalPrinterColumns;
    if (out['additionalPrinterColumns'] !== undefined) out['additionalPrinterColumns'] = columnsToV1(out['additionalPrinterColumns']);
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
