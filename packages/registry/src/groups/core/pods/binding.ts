/**
 * pods/binding and the `bindings` resource: what a scheduler POSTs to put a pod on a node
 * (kube's BindingREST). Sets spec.nodeName once, adds the Binding's annotations and the
 * PodScheduled=True condition, in one guaranteed update of the stored pod (no validation or
 * managedFields, as in kube). Answers 201 with a success Status; 409 on
 * `pods/binding "<pod>"` when the pod is bound, being deleted or gated.
 */
import type { KubeObject, Status } from '@kapi/machinery';
import { StatusError, badRequest, conflict, nowRFC3339 } from '@kapi/machinery';
import type { Creater, RestSubresource, WriteOptions } from '../../../rest.js';
import type { RequestContext } from '../../../definition.js';
import type { ResourceLookup, SubresourceStore } from '../../../subresource-store.js';

type Rec = Record<string, unknown>;

function rec(value: unknown): Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Rec) : {};
}

const BINDING_RESOURCE = { group: '', resource: 'pods/binding' };

/** kube's ValidatePodBinding; its errors are a plain aggregate (500 without a reason). */
function validateBinding(binding: Rec): void {
  const target = rec(binding['target']);
  const errs: string[] = [];
  const kind = typeof target['kind'] === 'string' ? target['kind'] : '';
  if (kind !== '' && kind !== 'Node') errs.push(`target.kind: Unsupported value: ${JSON.stringify(kind)}: supported values: "Node", "<empty>"`);
  if (typeof target['name'] !== 'string' || target['name'] === '') errs.push('target.name: Required value');
  if (errs.length > 0) throw new StatusError({ code: 500, message: errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]` });
}

/** kube's UpdatePodCondition for PodScheduled=True: the transition time moves only when the status changes. */
function markScheduled(pod: KubeObject): void {
  const status = rec(pod['status']);
  pod['status'] = status;
  const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as unknown[]).map(rec) : [];
  const index = conditions.findIndex((c) => c['type'] === 'PodScheduled');
  const old = index >= 0 ? conditions[index]! : undefined;
  const condition: Rec = {
    type: 'PodScheduled',
    status: 'True',
    // kube writes `lastProbeTime: null` (a zero Go time); kapi leaves it out, as its schemas hold no nulls.
    ...(old !== undefined && old['status'] === 'True' ? (old['lastTransitionTime'] !== undefined ? { lastTransitionTime: old['lastTransitionTime'] } : {}) : { lastTransitionTime: nowRFC3339() }),
  };
  if (index >= 0) conditions[index] = condition;
  else conditions.push(condition);
  status['conditions'] = conditions;
}

async function bind(store: SubresourceStore, req: RequestContext, name: string, body: unknown, options: WriteOptions): Promise<Status> {
  const binding = rec(body);
  const meta = rec(binding['metadata']);
  if ((typeof meta['name'] === 'string' ? meta['name'] : '') !== name) throw badRequest('name in URL does not match name in Binding object');
  validateBinding(binding);
  const node = String(rec(binding['target'])['name']);
  const annotations = rec(meta['annotations']);
  const preconditions = {
    ...(typeof meta['uid'] === 'string' && meta['uid'] !== '' ? { uid: meta['uid'] } : {}),
    ...(typeof meta['resourceVersion'] === 'string' && meta['resourceVersion'] !== '' ? { resourceVersion: meta['resourceVersion'] } : {}),
  };
  await store.update(
    req,
    name,
    (pod) => {
      const spec = rec(pod['spec']);
      const refuse = (why: string) => conflict(BINDING_RESOURCE, name, why);
      if (pod.metadata.deletionTimestamp !== undefined) throw refuse(`pod ${name} is being deleted, cannot be assigned to a host`);
      if (typeof spec['nodeName'] === 'string' && spec['nodeName'] !== '') throw refuse(`pod ${name} is already assigned to node ${JSON.stringify(spec['nodeName'])}`);
      if (Array.isArray(spec['schedulingGates']) && spec['schedulingGates'].length > 0) throw refuse(`pod ${name} has non-empty .spec.schedulingGates`);
      spec['nodeName'] = node;
      pod['spec'] = spec;
      if (Object.keys(annotations).length > 0) pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), ...(annotations as Record<string, string>) };
      markScheduled(pod);
      return pod;
    },
    { ...(options.dryRun === true ? { dryRun: true } : {}), ...(Object.keys(preconditions).length > 0 ? { preconditions } : {}) },
  );
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}

/** pods/binding: POST a Binding named as the pod. */
export function bindingSubresource(store: SubresourceStore): RestSubresource {
  return {
    name: 'binding',
    kind: { group: '', version: 'v1', kind: 'Binding' },
    creater: { create: (req, name, body, options) => bind(store, req, name, body, options) },
  };
}

/** The `bindings` resource: POST a Binding to the namespace; the pod is the one it names. */
export function bindingsCreater(lookup: ResourceLookup): Creater {
  return {
    async create(req, body, options) {
      const binding = lookup('', 'pods')?.subresources?.get('binding')?.creater;
      if (binding === undefined) throw new Error('pods are not served');
      const name = rec(rec(body)['metadata'])['name'];
      // A Status, as kube answers; the HTTP layer writes whatever object it is given.
      return (await binding.create(req, typeof name === 'string' ? name : '', body, options)) as unknown as KubeObject;
    },
  };
}
