/**
 * The `scale` subresource of custom resources: an autoscaling/v1 Scale view of the object
 * (spec.replicas from `specReplicasPath`, status.replicas from `statusReplicasPath`,
 * status.selector from `labelSelectorPath`). GET reads the object; PUT and PATCH (JSON patch,
 * merge patch, apply) change only the spec replicas through the main resource's update,
 * which bumps `metadata.generation` and checks the replicas (custom-resource.ts: 422 for a
 * negative count). A Scale body — for a patch, the patched Scale — must decode into the Go
 * type (400 for PUT, kube's 422 against the patched Scale for PATCH: replicas an int32,
 * metadata an ObjectMeta). A resourceVersion in the Scale is a precondition (409); without
 * one a lost race is retried. Throws StatusErrors only.
 */
import type { GroupResource, KubeObject, SchemaDefinitions, StatusError } from '@kapi/machinery';
import {
  applyJsonPatch,
  applyMergePatch,
  badRequest,
  decodeJsonPatch,
  fieldInvalid,
  invalid,
  isConflict,
  isNotFound,
  notFound,
  isPlainObject,
  managedFields,
  typedDecodeError,
  unsupportedMediaType,
} from '@kapi/machinery';
import type { RequestContext, ScaleDefinition } from '../definition.js';
import { cannotBeHandled, decodeBody } from '../decode-body.js';
import { patchResultError } from '../decode-failures.js';
import type { Getter, Patch, RestSubresource, Updater, WriteOptions } from '../rest.js';
import { SCALE_KIND, scaleSchema } from '../schemas/autoscaling.js';
import { compileJsonPath, dottedFields, evaluateJsonPath } from './jsonpath.js';

const SCALE_API_VERSION = 'autoscaling/v1';
const SCALE_GROUP_KIND = { group: 'autoscaling', kind: 'Scale' };
const RETRIES = 5;

function integerAt(obj: KubeObject, path: string): number {
  const value = evaluateJsonPath(compileJsonPath(path), obj)[0];
  return typeof value === 'number' && Number.isInteger(value) ? value : 0;
}

/** The Scale of `obj`. */
export function toScale(obj: KubeObject, scale: ScaleDefinition): KubeObject {
  const meta = obj.metadata;
  const status: Record<string, unknown> = { replicas: integerAt(obj, scale.statusReplicasPath) };
  if (scale.selector !== undefined) {
    const selector = scale.selector(obj);
    if (selector !== undefined && selector !== '') status['selector'] = selector;
  } else if (scale.labelSelectorPath !== undefined) {
    const selector = evaluateJsonPath(compileJsonPath(scale.labelSelectorPath), obj)[0];
    if (typeof selector === 'string' && selector !== '') status['selector'] = selector;
  }
  return {
    kind: 'Scale',
    apiVersion: SCALE_API_VERSION,
    metadata: {
      name: meta.name,
      ...(meta.namespace !== undefined ? { namespace: meta.namespace } : {}),
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    // ScaleSpec.replicas is omitempty.
    spec: integerAt(obj, scale.specReplicasPath) === 0 ? {} : { replicas: integerAt(obj, scale.specReplicasPath) },
    status,
  };
}

/**
 * How admission sees writes through `<resource>/scale` (kube admits the Scale, not the
 * object): the Scale of an object, and an object with the replicas a (mutated) Scale asks for.
 */
export function scaleAdmissionView(scale: ScaleDefinition): { toView(obj: KubeObject): KubeObject; fromView(view: KubeObject, obj: KubeObject): KubeObject } {
  const specFields = dottedFields(scale.specReplicasPath) ?? ['spec', 'replicas'];
  return {
    toView: (obj) => toScale(obj, scale),
    fromView(view, obj) {
      const spec = (view as { spec?: { replicas?: unknown } }).spec;
      const replicas = typeof spec?.replicas === 'number' ? spec.replicas : 0;
      if (replicas !== integerAt(obj, scale.specReplicasPath)) setAt(obj, specFields, replicas);
      return obj;
    },
  };
}

function setAt(obj: Record<string, unknown>, fields: readonly string[], value: unknown): void {
  let cur = obj;
  for (const f of fields.slice(0, -1)) {
    if (!isPlainObject(cur[f])) cur[f] = {};
    cur = cur[f] as Record<string, unknown>;
  }
  cur[fields[fields.length - 1]!] = value;
}

/** How a Scale that does not decode is answered: 400 for a PUT body, 422 against a patched Scale. */
type ScaleFailure = (scale: unknown, detail: string) => StatusError;

const putFailure: ScaleFailure = (_scale, detail) => cannotBeHandled(SCALE_KIND, detail);
const patchFailure: ScaleFailure = (scale, detail) => patchResultError(managedFields.goJson(scale))(detail);

/**
 * The replicas of a Scale body (apiVersion/kind checks: 400); `fail` answers a Scale its Go
 * type cannot hold. Range checks are the object's (custom-resource.ts).
 */
function replicasOf(body: unknown, definitions: SchemaDefinitions, fail: ScaleFailure, builtin?: { name: string }): { replicas: number; resourceVersion?: string } {
  const scale = decodeBody(body, SCALE_KIND);
  const undecodable = typedDecodeError(scale, scaleSchema, { definitions, rootStruct: SCALE_KIND.kind });
  if (undecodable !== undefined) throw fail(body, undecodable);
  const spec = isPlainObject(scale['spec']) ? scale['spec'] : {};
  const replicas = typeof spec['replicas'] === 'number' ? spec['replicas'] : 0;
  if (builtin !== undefined) {
    const bodyName = scale.metadata.name;
    if (typeof bodyName === 'string' && bodyName !== '' && bodyName !== builtin.name) {
      throw badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${builtin.name})`);
    }
    if (replicas < 0) throw invalid(SCALE_GROUP_KIND, builtin.name, [fieldInvalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  }
  const rv = scale.metadata.resourceVersion;
  return { replicas, ...(typeof rv === 'string' && rv !== '' ? { resourceVersion: rv } : {}) };
}

export interface ScaleTarget {
  readonly getter: Getter;
  readonly updater: Updater;
  readonly resource: GroupResource;
  /** Targets of `$ref` (ObjectMeta and the autoscaling/v1 types). */
  readonly definitions: SchemaDefinitions;
}

/** The roles of `<resource>/<name>/scale` over the main resource's getter and updater. */
export function scaleSubresource(scale: ScaleDefinition, target: ScaleTarget): RestSubresource {
  const specFields = dottedFields(scale.specReplicasPath) ?? ['spec', 'replicas'];
  const scaleResource = { group: target.resource.group, resource: `${target.resource.resource}/scale` };
  /** The object; for built-ins a missing one is `<plural>/scale` not found, as kube words it. */
  const get: Getter['get'] = async (req, name, options) => {
    try {
      return await target.getter.get(req, name, options);
    } catch (err) {
      if (scale.builtin === true && isNotFound(err)) throw notFound(scaleResource, name);
      throw err;
    }
  };

  /** Reads the object, lets `change` compute the new Scale from the current one, writes the replicas. */
  const write = async (req: RequestContext, name: string, options: WriteOptions, change: (current: KubeObject) => unknown, fail: ScaleFailure) => {
    for (let attempt = 1; ; attempt++) {
      const obj = structuredClone(await get(req, name, {}));
      const wanted = replicasOf(change(toScale(obj, scale)), target.definitions, fail, scale.builtin === true ? { name } : undefined);
      setAt(obj, specFields, wanted.replicas);
      obj.metadata.resourceVersion = wanted.resourceVersion ?? obj.metadata.resourceVersion;
      try {
        const { object } = await target.updater.update(req, name, obj, options);
        return { object: toScale(object, scale), created: false };
      } catch (err) {
        if (!isConflict(err) || wanted.resourceVersion !== undefined || attempt >= RETRIES) throw err;
      }
    }
  };

  return {
    name: 'scale',
    // The answer is a Scale made from the object, not the object: nothing for the stored bytes to answer.
    getter: { get: async (req, name, { protobufAnswer: _answer, ...options }) => toScale(await get(req, name, options), scale) },
    updater: { update: (req, name, body, options) => write(req, name, options, () => body, putFailure) },
    patcher: {
      patch: (req, name, patch: Patch, options) =>
        write(req, name, options, (current) => {
          switch (patch.type) {
            case 'application/json-patch+json':
              return applyJsonPatch(current, decodeJsonPatch(patch.body));
            case 'application/merge-patch+json':
            case 'application/apply-patch+yaml':
              return applyMergePatch(current, patch.body);
            case 'application/strategic-merge-patch+json':
              // A Scale has no lists: a strategic merge patch of it is a merge patch.
              if (scale.builtin === true) return applyMergePatch(current, patch.body);
              throw unsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`);
            default:
              throw unsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`);
          }
        }, patchFailure),
    },
  };
}

