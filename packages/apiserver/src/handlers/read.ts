/** get and list. */
import { validateListOptions, yieldIfBusy } from '@kapi/machinery';
import { listJsonParts, listProtobufParts, withoutItemTypeMeta } from '../http/encode-once.js';
import { MEDIA_TYPES } from '../http/negotiation.js';
import { writeEncoded, writeObject, writeYaml } from '../http/respond.js';
import { parseListOptions } from './options.js';
import { noteResponseObject } from '../audit/capture.js';
import type { RequestScope } from './scope.js';

/** GET on an item: 200 with the object (only encoded here: it may be shared); 404 when absent (from the Getter). */
export async function handleGet(scope: RequestScope): Promise<void> {
  const rv = scope.query.get('resourceVersion');
  // A protobuf answer of the object itself may be made from the bytes the storage read.
  const protobufAnswer = scope.output.encoding === 'protobuf' && scope.output.transform === undefined;
  const object = await scope.resource.getter!.get(scope.context, scope.info.name, {
    ...(rv !== null ? { resourceVersion: rv } : {}),
    readOnly: true,
    ...(protobufAnswer ? { protobufAnswer } : {}),
  });
  await yieldIfBusy();

  if (scope.output.transform === undefined && scope.output.encoding === 'yaml') return writeYaml(scope.res, 200, object, { warnings: scope.warnings });
  writeObject(scope.res, 200, object, scope.output, { warnings: scope.warnings });
}

/**
 * GET on a collection: 200 with the list. Selector and option errors are 400/422 (a list
 * with sendInitialEvents is 422 `sendInitialEvents is forbidden for list`). JSON and protobuf
 * lists reuse each item's encoded bytes (shared cached objects are encoded once).
 */
export async function handleList(scope: RequestScope): Promise<void> {
  const { watch: _watch, timeoutSeconds: _timeout, allowWatchBookmarks: _bookmarks, sendInitialEvents, ...options } = parseListOptions(scope.query);
  if (sendInitialEvents !== undefined) validateListOptions({ ...options, sendInitialEvents });
  const listed = await scope.resource.lister!.list(scope.context, options);
  // An unstructured (custom-resource) list keeps kube's empty continue token: `continue: ""`.
  const { encoding, transform } = scope.output;
  const list = scope.resource.definition.bodyDecoding === 'unstructured' && transform === undefined && listed.metadata.continue === undefined ? { ...listed, metadata: { continue: '', ...listed.metadata } } : listed;
  const write = { warnings: scope.warnings };
  // kube's built-in list items are typed structs without apiVersion/kind; custom resources keep them.
  const withoutTypeMeta = scope.resource.definition.bodyDecoding !== 'unstructured';
  if (transform === undefined && (encoding === 'json' || encoding === 'protobuf')) noteResponseObject(scope.res, list);
  if (transform === undefined && encoding === 'json') writeEncoded(scope.res, 200, listJsonParts(list, { withoutTypeMeta }), 'json', write);
  else if (transform === undefined && encoding === 'protobuf') writeEncoded(scope.res, 200, listProtobufParts(list), 'protobuf', { ...write, contentType: MEDIA_TYPES.protobuf });
  // YAML is encoded in slices: a large list's go-yaml emission is hundreds of ms of CPU.
  else if (transform === undefined && encoding === 'yaml') await writeYaml(scope.res, 200, withoutTypeMeta ? withoutItemTypeMeta(list) : list, write);
  else writeObject(scope.res, 200, withoutTypeMeta && transform === undefined ? withoutItemTypeMeta(list) : list, scope.output, write);
}
