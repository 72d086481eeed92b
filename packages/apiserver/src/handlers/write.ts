/** create (POST) and update (PUT). */
import { writeObject } from '../http/respond.js';
import { parseWriteOptions } from './options.js';
import { readObjectBodyWithDuplicates } from './request-body.js';
import type { RequestScope } from './scope.js';

function warner(scope: RequestScope): (message: string) => void {
  return (message) => scope.warnings.push(message);
}

/** POST on a collection: 201 with the created object. Duplicate fields in a JSON body follow fieldValidation. */
export async function handleCreate(scope: RequestScope): Promise<void> {
  const options = parseWriteOptions(scope.query, 'CreateOptions', warner(scope));
  const { body, duplicateFields } = await readObjectBodyWithDuplicates(scope, options.fieldValidation !== 'Ignore');
  const object = await scope.resource.creater!.create(scope.context, body, { ...options, duplicateFields });
  writeObject(scope.res, 201, object, scope.output, { warnings: scope.warnings });
}

/** PUT on an item: 200 with the updated object, 201 when the update created it. */
export async function handleUpdate(scope: RequestScope): Promise<void> {
  const options = parseWriteOptions(scope.query, 'UpdateOptions', warner(scope));
  const { body, duplicateFields } = await readObjectBodyWithDuplicates(scope, options.fieldValidation !== 'Ignore');
  const result = await scope.resource.updater!.update(scope.context, scope.info.name, body, { ...options, duplicateFields });
  writeObject(scope.res, result.created ? 201 : 200, result.object, scope.output, { warnings: scope.warnings });
}
