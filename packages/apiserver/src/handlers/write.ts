/** create (POST) and update (PUT). */
import { formatApiVersion, nextSlice, shouldYield } from '@kapi/machinery';
import { readObjectBody, type ObjectBodyTarget } from '../body/object-body.js';
import { writeObject } from '../http/respond.js';
import { resourceCapabilities } from '../http/resource-output.js';
import { parseWriteOptions } from './options.js';
import type { RequestScope } from './scope.js';

function warner(scope: RequestScope): (message: string) => void {
  return (message) => scope.warnings.push(message);
}

/** What the body of a write to this endpoint decodes as. */
export function bodyTarget(scope: RequestScope, kind = scope.resource.definition.kind, apiVersion?: string): ObjectBodyTarget {
  const { definition } = scope.resource;
  return {
    kind,
    apiVersion: apiVersion ?? formatApiVersion(definition.group, scope.info.version),
    capabilities: resourceCapabilities(definition, scope.info.version),
  };
}

/**
 * POST on a collection: 201 with the created object (only encoded here: it may be shared).
 * Duplicate keys in the body follow fieldValidation.
 */
export async function handleCreate(scope: RequestScope): Promise<void> {
  const options = parseWriteOptions(scope.query, 'CreateOptions', warner(scope));
  const { body, duplicateFields, duplicateKeyLines, protobuf } = await readObjectBody(scope.req, bodyTarget(scope), options.fieldValidation !== 'Ignore');
  const object = await scope.resource.creater!.create(scope.context, body, { ...options, duplicateFields, duplicateKeyLines, readOnlyResult: true, protobufBody: protobuf === true });
  if (shouldYield()) await nextSlice();

  writeObject(scope.res, 201, object, scope.output, { warnings: scope.warnings });
}

/**
 * Whether a write's result is only encoded (so it may be shared, see WriteOptions.readOnlyResult):
 * on the resource itself, whose store answers with the stored object. A subresource's updater
 * may make its answer from the object (a Scale), so it gets a private one.
 */
export function readOnlyResult(scope: RequestScope): { readOnlyResult?: true } {
  return scope.info.subresource === '' ? { readOnlyResult: true } : {};
}

/** PUT on an item: 200 with the updated object, 201 when the update created it (only encoded here: it may be shared). */
export async function handleUpdate(scope: RequestScope): Promise<void> {
  const options = parseWriteOptions(scope.query, 'UpdateOptions', warner(scope));
  const { body, duplicateFields, duplicateKeyLines } = await readObjectBody(scope.req, bodyTarget(scope), options.fieldValidation !== 'Ignore');
  const result = await scope.resource.updater!.update(scope.context, scope.info.name, body, { ...options, duplicateFields, duplicateKeyLines, ...readOnlyResult(scope) });
  if (shouldYield()) await nextSlice();

  writeObject(scope.res, result.created ? 201 : 200, result.object, scope.output, { warnings: scope.warnings });
}
