/**
 * Go's `%#v` of the few values kube's workload validation prints in its messages
 * (`Invalid value: map[string]string{"a":"b"}: ...`): string maps and metav1.LabelSelector.
 */
import { goQuote, isPlainObject } from '@kapi/machinery';

/** `map[string]string{"a":"b", "c":"d"}` (keys sorted, as Go prints maps); `map[string]string(nil)` when absent. */
export function goStringMap(value: unknown): string {
  if (!isPlainObject(value)) return 'map[string]string(nil)';
  const keys = Object.keys(value).sort();
  return `map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(String(value[k]))}`).join(', ')}}`;
}

function goStrings(value: unknown): string {
  if (!Array.isArray(value)) return '[]string(nil)';
  return `[]string{${value.map((v) => goQuote(String(v))).join(', ')}}`;
}

/** `v1.LabelSelector{MatchLabels:..., MatchExpressions:...}`. */
export function goLabelSelector(value: unknown): string {
  const sel = isPlainObject(value) ? value : {};
  const expressions = sel['matchExpressions'];
  const exprText = Array.isArray(expressions)
    ? `[]v1.LabelSelectorRequirement{${expressions
        .map((e) => {
          const r = isPlainObject(e) ? e : {};
          return `v1.LabelSelectorRequirement{Key:${goQuote(String(r['key'] ?? ''))}, Operator:${goQuote(String(r['operator'] ?? ''))}, Values:${goStrings(r['values'])}}`;
        })
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${goStringMap(sel['matchLabels'])}, MatchExpressions:${exprText}}`;
}

/** `intstr.IntOrString{Type:1, IntVal:0, StrVal:"50%"}` for a string, the bare number for an int. */
export function goIntOrString(value: unknown): string {
  if (typeof value === 'string') return `intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(value)}}`;
  return String(value);
}
