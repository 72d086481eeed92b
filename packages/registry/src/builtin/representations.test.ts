/**
 * Every built-in resource has a protobuf message whose fields cover its schema (so nothing a
 * JSON client can store is lost for a protobuf client) and has no field its schema lacks (so
 * a protobuf body has no unknown fields: a create skips pruning them, see decodeRequest), and
 * printer columns that make a well-formed Table for a sample object.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps, MessageCodec } from '@kapi/machinery';
import { buildTable, formatApiVersion, protobufKind, refName } from '@kapi/machinery';
import { builtinDefinitions, definitions } from './index.js';

function resolve(schema: JSONSchemaProps): JSONSchemaProps {
  if (schema.$ref !== undefined) return resolve(definitions[refName(schema.$ref)]!);
  if (schema.allOf?.length === 1 && schema.properties === undefined) return resolve(schema.allOf[0]!);
  return schema;
}

/** The JSON fields of a message, inline members' included (their fields are the parent's in JSON). */
function jsonFields(codec: MessageCodec): Record<string, MessageCodec['fields'][string]> {
  return Object.assign({}, ...(codec.inline ?? []).map((member) => jsonFields(member.codec)), codec.fields) as Record<string, MessageCodec['fields'][string]>;
}

function compare(schema: JSONSchemaProps, codec: MessageCodec, path: string, problems: string[]): void {
  const properties = resolve(schema).properties ?? {};
  const fields = jsonFields(codec);
  for (const [name, property] of Object.entries(properties)) {
    // TypeMeta (top level and embedded objects such as volumeClaimTemplates) is never on the wire.
    if ((name === 'apiVersion' || name === 'kind') && properties['apiVersion'] !== undefined && properties['kind'] !== undefined) continue;
    const field = fields[name];
    if (field === undefined) {
      problems.push(`${path}.${name}: in the schema, not in the protobuf message`);
      continue;
    }
    const resolved = resolve(property);
    const element = resolved.type === 'array' && resolved.items !== undefined ? resolve(resolved.items) : resolved;
    if (element.properties !== undefined) {
      if (field.nested === undefined) problems.push(`${path}.${name}: a struct in the schema, a scalar in the protobuf message`);
      else compare(element, field.nested, `${path}.${name}`, problems);
    }
  }
  for (const name of Object.keys(fields)) {
    if (properties[name] === undefined) problems.push(`${path}.${name}: in the protobuf message, not in the schema`);
  }
}

void describe('built-in representations', () => {
  for (const def of builtinDefinitions) {
    for (const version of def.versions) {
      const apiVersion = formatApiVersion(def.group, version.name);
      void it(`${def.plural}.${def.group}/${version.name}: the protobuf message covers the schema field by field`, () => {
        const kind = protobufKind(apiVersion, def.kind);
        assert.ok(kind, `no protobuf message for ${apiVersion} ${def.kind}`);
        // A create-only resource (bindings) has no list, and kube no list message for it.
        if (def.verbs.includes('list')) assert.ok(kind.listType, `no ${def.listKind} message`);
        const problems: string[] = [];
        compare(version.schema, kind.codec, def.kind, problems);
        assert.deepEqual(problems, []);
      });
    }
    const apiVersion = formatApiVersion(def.group, def.versions[0]!.name);

    void it(`${def.plural}.${def.group}: printer columns make a Table with a name column and one cell per column`, () => {
      const columns = def.printerColumns;
      assert.ok(columns && columns.length >= 2, `${def.plural} has no printer columns`);
      // kube marks more than the Name column in one case: a VolumeAttachment's Attacher.
      assert.equal(columns.filter((c) => c.definition.format === 'name' && c.definition.name === 'Name').length, 1);
      const sample = { apiVersion, kind: def.kind, metadata: { name: 'x', creationTimestamp: '2024-01-01T00:00:00Z' } };
      const table = buildTable([sample], {}, { columns, version: 'v1', includeObject: 'None', now: Date.parse('2024-01-01T00:00:45Z') });
      assert.equal(table.rows[0]!.cells.length, columns.length);
      assert.ok(table.rows[0]!.cells.every((c) => c !== undefined && c !== null));
    });
  }
});
