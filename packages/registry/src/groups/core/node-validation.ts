/**
 * kube's Node validation that clients meet: taints (kube reports them under
 * `metadata.taints`, not `spec.taints`), pod CIDRs (valid, at most one per IP family) and the
 * fields an update may not change once set (podCIDRs, providerID).
 */
import { isIP } from 'node:net';
import type { FieldError, KubeObject } from '@kapi/machinery';
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, goQuote, isQualifiedName, isValidLabelValue } from '@kapi/machinery';
import { recordAt } from '../../builtin/builtin-strategy.js';

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

const specOf = (node: KubeObject): Record<string, unknown> => recordAt(node, 'spec') ?? {};
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The node's pod CIDRs (spec.podCIDRs, after decoding folded podCIDR into it). */
export function podCIDRsOf(node: KubeObject): string[] {
  const cidrs = specOf(node)['podCIDRs'];
  return Array.isArray(cidrs) ? cidrs.map(text) : [];
}

/** 4 or 6 for a CIDR as Go's net.ParseCIDR accepts it, else 0. */
function cidrFamily(cidr: string): 4 | 6 | 0 {
  const slash = cidr.indexOf('/');
  if (slash < 0) return 0;
  const family = isIP(cidr.slice(0, slash));
  const bits = cidr.slice(slash + 1);
  if (family === 0 || !/^[0-9]{1,3}$/.test(bits) || Number(bits) > (family === 4 ? 32 : 128)) return 0;
  return family as 4 | 6;
}

/** Go's %#v of a core.Taint, as kube prints a duplicate. */
function goTaint(taint: Record<string, unknown>): string {
  const added = text(taint['timeAdded']);
  return `core.Taint{Key:${goQuote(text(taint['key']))}, Value:${goQuote(text(taint['value']))}, Effect:${goQuote(text(taint['effect']))}, TimeAdded:${added === '' ? '<nil>' : added}}`;
}

function validateTaints(node: KubeObject): FieldError[] {
  const taints = specOf(node)['taints'];
  if (!Array.isArray(taints)) return [];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  taints.forEach((raw, i) => {
    const taint = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
    const path = `metadata.taints[${i}]`;
    const key = text(taint['key']);
    for (const msg of isQualifiedName(key)) errs.push(fieldInvalid(`${path}.key`, key, msg));
    const value = text(taint['value']);
    for (const msg of isValidLabelValue(value)) errs.push(fieldInvalid(`${path}.value`, value, msg));
    const effect = text(taint['effect']);
    if (effect === '') errs.push(fieldRequired(`${path}.effect`));
    else if (!TAINT_EFFECTS.includes(effect)) errs.push(fieldNotSupported(`${path}.effect`, effect, TAINT_EFFECTS));
    const id = `${key}\x00${effect}`;
    if (seen.has(id)) {
      errs.push({ type: 'FieldValueDuplicate', field: path, message: `Duplicate value: ${goTaint(taint)}: taints must be unique by key and effect pair` });
    }
    seen.add(id);
  });
  return errs;
}

function validatePodCIDRs(node: KubeObject): FieldError[] {
  const cidrs = podCIDRsOf(node);
  const errs: FieldError[] = [];
  cidrs.forEach((cidr, i) => {
    if (cidrFamily(cidr) === 0) errs.push(fieldInvalid(`spec.podCIDRs[${i}]`, cidr, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'));
  });
  if (errs.length > 0 || cidrs.length < 2) return errs;
  const families = cidrs.map(cidrFamily);
  if (cidrs.length > 2 || families[0] === families[1]) {
    const goSlice = `[]string{${cidrs.map(goQuote).join(', ')}}`;
    return [{ type: 'FieldValueInvalid', field: 'spec.podCIDRs', message: `Invalid value: ${goSlice}: may specify no more than one CIDR for each IP family` }];
  }
  return [];
}

/** Every write of a Node (create and update of the main resource). */
export function validateNode(node: KubeObject): FieldError[] {
  return [...validateTaints(node), ...validatePodCIDRs(node)];
}

/** What an update may not change: pod CIDRs and providerID, once set. */
export function validateNodeUpdate(node: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const before = podCIDRsOf(old);
  const after = podCIDRsOf(node);
  if (before.length > 0 && (before.length !== after.length || before.some((cidr, i) => cidr !== after[i]))) {
    errs.push(fieldForbidden('spec.podCIDRs', 'node updates may not change podCIDR except from "" to valid'));
  }
  const oldProvider = text(specOf(old)['providerID']);
  if (oldProvider !== '' && oldProvider !== text(specOf(node)['providerID'])) {
    errs.push(fieldForbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  return errs;
}
