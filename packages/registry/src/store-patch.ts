/**
 * patch (PATCH) of the generic store: the four patch types applied to the current object
 * inside the guaranteed update, then the update step PUT uses (defaults, validation,
 * managedFields, no-op detection), as kube's patcher does.
 *
 * - json-patch, merge-patch, strategic-merge-patch: an Update entry for the fieldManager (or
 *   the User-Agent); 404 when the object is absent.
 * - apply-patch: server-side apply by `fieldManager`; creates the object when absent (201).
 *
 * A resourceVersion the patch leaves in the object is a precondition (409 on mismatch);
 * otherwise a concurrent write is retried on the fresh object. Unknown and duplicate fields
 * follow fieldValidation with kube's patch texts.
 */
import type { KubeObject } from '@kapi/machinery';
import {
  StatusError,
  StrategicMergeError,
  applyConfigurationSliced,
  applyJsonPatch,
  applyMergePatch,
  badRequest,
  decodeJsonPatch,
  deepCopy,
  goFormatValue,
  isPlainObject,
  managedFields,
  notFound,
  patchNotApplicable,
  strategicMergePatchSliced,
  yieldIfBusy,
} from '@kapi/machinery';
import type { RequestContext } from './definition.js';
import type { Patch, PatchOptions } from './rest.js';
import { decodeRequest, fieldManagerScope, present, updateManager, type StoreContext } from './store-context.js';
import { translatingStorageErrors } from './storage-errors.js';
import { checkName, runUpdate, updateResult, updateStep, type UpdateOutcome, type UpdateScope } from './store-update.js';
import { applyFailures, patchResultFailures, type DecodeFailures } from './decode-failures.js';
import { duplicateFieldMessages, pruneUnknown, yamlUnmarshalErrors } from './unknown-fields.js';

function goTypeOf(value: unknown): string {
  return Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'bool' : typeof value;
}

/** A patched document must be an object (kube fails to unmarshal anything else). */
function requireObject(patched: unknown): Record<string, unknown> {
  if (!isPlainObject(patched)) throw badRequest(`json: cannot unmarshal ${goTypeOf(patched)} into Go value of type map[string]interface {}`);
  return patched;
}

function strategicMergeFailure(err: StrategicMergeError): StatusError {
  return err.kind === 'Invalid' ? patchNotApplicable() : badRequest(err.message);
}

/**
 * The configuration of an apply: an object whose fields the schema knows (kube fails to type
 * it otherwise: `.spec.foo: field not declared in schema`).
 */
async function checkApplyConfiguration(ctx: StoreContext, config: unknown): Promise<Record<string, unknown>> {
  if (!isPlainObject(config)) throw badRequest(`error decoding patch: json: cannot unmarshal ${goTypeOf(config)} into Go value of type map[string]interface {}`);
  const copy = deepCopy(config) as KubeObject;
  await yieldIfBusy();
  const meta = isPlainObject(copy.metadata) ? copy.metadata : (copy.metadata = {});
  const unknown = pruneUnknown(copy, { object: ctx.schema, metadata: ctx.metadataSchema, definitions: ctx.schemas });
  if (unknown.length > 0) {
    const name = typeof meta.name === 'string' ? meta.name : '';
    const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
    const gvk = `${ctx.expected.group}/${ctx.expected.version}, Kind=${ctx.expected.kind}`;
    throw badRequest(`failed to create typed patch object (${namespace}/${name}; ${gvk}): ${unknown.map((p) => `.${p}: field not declared in schema`).join('\n')}`);
  }
  return config;
}

interface PreparedPatch {
  /** The patched object (apply: with its managedFields), before decoding. */
  (current: KubeObject | undefined): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** How unknown fields (Strict) and undecodable values of the result are reported. */
  readonly failures: (patched: Record<string, unknown>) => DecodeFailures;
  /** Problems found in the patch body itself (duplicates). */
  readonly bodyProblems: readonly string[];
}

async function preparePatch(ctx: StoreContext, patch: Patch, options: PatchOptions, subresource: string): Promise<PreparedPatch> {
  const duplicates = duplicateFieldMessages(options.duplicateFields);
  // Rendered only when a failure is actually reported (Go JSON of the whole object is costly).
  const rendered = (patched: Record<string, unknown>): DecodeFailures => ({
    strict: (detail) => patchResultFailures(managedFields.goJson(patched)).strict(detail),
    undecodable: (detail) => patchResultFailures(managedFields.goJson(patched)).undecodable(detail),
  });
  switch (patch.type) {
    case 'application/json-patch+json': {
      const operations = decodeJsonPatch(patch.body);
      return Object.assign((current: KubeObject | undefined) => requireObject(applyJsonPatch(current, operations)), {
        failures: rendered,
        bodyProblems: duplicates.map((d) => `json patch ${d}`),
      });
    }
    case 'application/merge-patch+json':
      return Object.assign((current: KubeObject | undefined) => requireObject(applyMergePatch(current, patch.body)), { failures: rendered, bodyProblems: duplicates });
    case 'application/strategic-merge-patch+json': {
      if (!isPlainObject(patch.body)) throw badRequest(`json: cannot unmarshal ${goTypeOf(patch.body)} into Go value of type map[string]interface {}`);
      const body = patch.body;
      const smp = async (current: KubeObject | undefined) => {
        try {
          return await strategicMergePatchSliced(current as Record<string, unknown>, body, ctx.schema, ctx.schemas);
        } catch (err) {
          if (err instanceof StrategicMergeError) throw strategicMergeFailure(err);
          throw err;
        }
      };
      return Object.assign(smp, { failures: () => patchResultFailures(goFormatValue(body)), bodyProblems: duplicates });
    }
    case 'application/apply-patch+yaml': {
      const config = await checkApplyConfiguration(ctx, patch.body);
      const scope = fieldManagerScope(ctx, subresource);
      const manager = options.fieldManager ?? '';
      const apply = async (current: KubeObject | undefined) => {
        // Ownership and conflicts in this version's field names (entries of other versions converted and back).
        const live = current === undefined ? undefined : { ...current };
        if (live !== undefined) ctx.managedFieldsConversion?.toServed(live);
        const applied = (await applyConfigurationSliced(scope, live, config, manager, options.force === true)).object;
        ctx.managedFieldsConversion?.fromServed(applied);
        return applied;
      };
      const meta = isPlainObject(config['metadata']) ? config['metadata'] : {};
      const target = {
        namespace: typeof meta['namespace'] === 'string' ? meta['namespace'] : '',
        name: typeof meta['name'] === 'string' ? meta['name'] : '',
        expected: ctx.expected,
      };
      const failures = (patched: Record<string, unknown>): DecodeFailures => ({
        strict: (detail) => applyFailures(managedFields.goJson(patched), target).strict(detail),
        undecodable: (detail) => applyFailures('', target).undecodable(detail),
      });
      return Object.assign(apply, { failures, bodyProblems: [] });
    }
  }
}

/**
 * PATCH `name` (through `subresource`, "" for the main resource). See the module comment.
 * Returns the resulting object and whether the patch created it. Throws StatusErrors only.
 */
export async function patchObject(
  ctx: StoreContext,
  req: RequestContext,
  name: string,
  patch: Patch,
  options: PatchOptions,
  subresource = '',
): Promise<{ object: KubeObject; created: boolean }> {
  return translatingStorageErrors(ctx.resource, name, async () => {
    await yieldIfBusy();
    const prepared = await preparePatch(ctx, patch, options, subresource);
    await yieldIfBusy();
    const isApply = patch.type === 'application/apply-patch+yaml';
    const created: UpdateOutcome = { value: false };
    // The step may run again after a write conflict: warn once per message.
    const warned = new Set<string>();
    const warnOnce = (message: string) => {
      if (warned.has(message)) return;
      warned.add(message);
      options.warn?.(message);
    };
    // Duplicate keys of an apply body are reported after the apply, below, not as the patched object's.
    const stepOptions: PatchOptions = { ...options, warn: warnOnce, duplicateKeyLines: [] };
    const { force: _force, ...admissionOptions } = stepOptions;
    const scope: UpdateScope = {
      ctx, req, name, subresource, manager: isApply ? undefined : updateManager(req, options), forceAllowCreate: isApply, dryRun: options.dryRun === true, options: admissionOptions, warn: warnOnce,
    };
    const object = await runUpdate(ctx, req, name, options, async (existing) => {
      if (existing === undefined && (!isApply || subresource !== '')) throw notFound(ctx.resource, name);
      const patched = await prepared(existing === undefined ? undefined : present(ctx, existing));
      await yieldIfBusy();
      const decoded = await decodeRequest(ctx, patched, stepOptions, prepared.failures(patched), prepared.bodyProblems);
      checkName(decoded, name, req.namespace);
      const duplicateKeys = options.duplicateKeyLines ?? [];
      if (isApply && duplicateKeys.length > 0) {
        if (options.fieldValidation === 'Strict') throw badRequest(`error strict decoding YAML: error converting YAML to JSON: ${yamlUnmarshalErrors(duplicateKeys)}`);
        if ((options.fieldValidation ?? 'Warn') === 'Warn') duplicateKeys.forEach(warnOnce);
      }
      return updateStep(scope, decoded, existing, created, true);
    }, created);
    return updateResult(ctx, object, created);
  });
}
