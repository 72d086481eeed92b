#!/usr/bin/env node
// Regenerates packages/machinery/src/protobuf/testdata/go-golden-catalog.json: for every kind
// of the catalogue that client-go's scheme knows, an object with every field of its schema
// set (one entry per list and map, fields of embedded objects' TypeMeta left out), converted
// by the Go types of k8s.io/api v0.32 (e2e/go-typed `kapi-typed golden`) to protobuf bytes
// and to Go's JSON. go-golden.test.ts checks kapi's codecs against both, field by field.
// Build the Go program first: (cd e2e/go-typed && go build -o ../.cache/bin/kapi-typed ./cmd/kapi-typed).
// Usage: node scripts/generate-catalog-golden.mjs [path/to/kapi-typed]   (after `make build`)
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { catalogKinds, schemaDefinitions } from '../packages/catalog/dist/index.js';

const binary = process.argv[2] ?? new URL('../e2e/.cache/bin/kapi-typed', import.meta.url).pathname;
const out = new URL('../packages/machinery/src/protobuf/testdata/go-golden-catalog.json', import.meta.url).pathname;
const definitions = schemaDefinitions();

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
/** Values of the types with a JSON form of their own. */
const WELL_KNOWN = {
  [`${META}Time`]: () => '2024-01-02T03:04:05Z',
  [`${META}MicroTime`]: () => '2024-01-02T03:04:05.123456Z',
  [`${META}FieldsV1`]: () => ({ 'f:metadata': { 'f:labels': { '.': {} } } }),
  'io.k8s.apimachinery.pkg.api.resource.Quantity': () => '1500m',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': (depth) => (depth % 2 === 0 ? 8080 : '25%'),
  'io.k8s.apimachinery.pkg.runtime.RawExtension': () => ({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } }),
};

function refOf(schema) {
  const ref = schema.$ref ?? (schema.allOf?.length === 1 ? schema.allOf[0].$ref : undefined);
  return ref === undefined ? undefined : ref.slice('#/components/schemas/'.length);
}

/** A value for `schema` with every field set; undefined where nothing can be made (cycles). */
function fill(schema, depth, seen) {
  const ref = refOf(schema);
  if (ref !== undefined) {
    if (WELL_KNOWN[ref] !== undefined) return WELL_KNOWN[ref](depth);
    if (seen.has(ref) || depth > 16) return undefined;
    return fill(definitions[ref], depth + 1, new Set([...seen, ref]));
  }
  switch (schema.type) {
    case 'object': {
      if (schema.properties !== undefined) {
        const obj = {};
        for (const [name, property] of Object.entries(schema.properties)) {
          if (name === 'apiVersion' || name === 'kind') continue; // TypeMeta is the envelope's (and not on the wire when embedded)
          const value = fill(property, depth + 1, seen);
          if (value !== undefined) obj[name] = value;
        }
        return obj;
      }
      if (schema.additionalProperties !== undefined && typeof schema.additionalProperties === 'object') {
        const value = fill(schema.additionalProperties, depth + 1, seen);
        return value === undefined ? undefined : { key: value };
      }
      return undefined;
    }
    case 'array': {
      const value = fill(schema.items, depth + 1, seen);
      return value === undefined ? undefined : [value];
    }
    case 'string':
      return schema.format === 'byte' ? 'AAEC/w==' : schema.format === 'date-time' ? '2024-01-02T03:04:05Z' : `s${depth}`;
    case 'integer':
      return schema.format === 'int32' ? 7 : 9;
    case 'boolean':
      return true;
    case 'number':
      return 1.5;
    default:
      return undefined;
  }
}

// client-go's scheme has k8s.io/api only (not apiregistration or apiextensions).
const kinds = catalogKinds().filter((k) => k.schema !== undefined && !k.kind.endsWith('List') && !k.group.startsWith('apiregistration') && !k.group.startsWith('apiextensions'));
const objects = kinds.map((k) => ({
  apiVersion: k.group === '' ? k.version : `${k.group}/${k.version}`,
  kind: k.kind,
  ...fill(definitions[k.schema], 0, new Set([k.schema])),
}));
const input = objects.map((object, i) => JSON.stringify({ id: String(i), op: 'encode', object })).join('\n') + '\n';
const result = spawnSync(binary, ['golden'], { input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
if (result.status !== 0) throw new Error(`kapi-typed golden failed: ${result.stderr}`);
const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l));
const golden = lines.map((line, i) => {
  if (line.error) throw new Error(`${objects[i].apiVersion} ${objects[i].kind}: ${line.error}`);
  return { apiVersion: objects[i].apiVersion, kind: objects[i].kind, protobuf: line.protobuf, goJson: line.json };
});
// One golden object a line: reviewable diffs without the indentation of 60 PodSpecs.
const header = JSON.stringify({ generatedBy: 'scripts/generate-catalog-golden.mjs with k8s.io/api v0.32.13' });
writeFileSync(out, `{"header": ${header}, "golden": [\n${golden.map((g) => JSON.stringify(g)).join(',\n')}\n]}\n`);
console.log(`wrote ${golden.length} golden objects to ${out}`);
