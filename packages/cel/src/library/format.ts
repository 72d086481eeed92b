/**
 * kube's format library (k8s.io/apiserver/pkg/cel/library/format.go, kube 1.31+):
 * `format.<name>()` and `format.named(name)` give a named format whose `validate(string)`
 * returns optional.none() when the string is valid, else the list of errors.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { Optional } from '@marcbachmann/cel-js';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '@kapi/machinery';
import { parseURL } from './urls.js';

export class NamedFormat {
  constructor(readonly name: string, readonly validate: (s: string) => string[]) {}
  equals(o: unknown): boolean { return o instanceof NamedFormat && o.name === this.name; }
}

class FormatNamespace {}

const prefix = (check: (s: string) => string[]) => (s: string): string[] => check(s.endsWith('-') ? s.slice(0, -1) + 'a' : s);

const FORMATS: readonly NamedFormat[] = [
  new NamedFormat('dns1123Label', isDNS1123Label),
  new NamedFormat('dns1123Subdomain', isDNS1123Subdomain),
  new NamedFormat('dns1035Label', isDNS1035Label),
  new NamedFormat('qualifiedName', isQualifiedName),
  new NamedFormat('dns1123LabelPrefix', prefix(isDNS1123Label)),
  new NamedFormat('dns1123SubdomainPrefix', prefix(isDNS1123Subdomain)),
  new NamedFormat('dns1035LabelPrefix', prefix(isDNS1035Label)),
  new NamedFormat('labelValue', isValidLabelValue),
  new NamedFormat('uri', (s) => (parseURL(s) ? [] : ['invalid URI'])),
  new NamedFormat('uuid', (s) => (/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(s) ? [] : ['does not match the UUID format'])),
  new NamedFormat('byte', (s) => (/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s) ? [] : ['invalid base64'])),
  new NamedFormat('date', (s) => (/^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)) ? [] : ['invalid date'])),
  new NamedFormat('datetime', (s) => (/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)) ? [] : ['invalid datetime'])),
];

export function installFormat(env: Environment): void {
  const F = 'kubernetes.NamedFormat';
  env.registerType(F, NamedFormat);
  env.registerType('format', FormatNamespace);
  env.registerConstant('format', 'format', new FormatNamespace());
  const byName = new Map(FORMATS.map((f) => [f.name, f]));
  for (const f of FORMATS) env.registerFunction(`format.${f.name}(): ${F}`, () => f);
  env.registerFunction(`format.named(string): optional<${F}>`, (_ns: unknown, name: string) => {
    const f = byName.get(name);
    return f ? Optional.of(f) : Optional.none();
  });
  env.registerFunction(`${F}.validate(string): optional<list<string>>`, (f: NamedFormat, s: string) => {
    const errs = f.validate(s);
    return errs.length === 0 ? Optional.none() : Optional.of(errs);
  });
  env.registerOperator(`${F} == ${F}`, (a: NamedFormat, b: NamedFormat) => a.equals(b));
}
