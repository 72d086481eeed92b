/**
 * kube's Node authorization mode (1.32, AuthorizeNodeWithSelectors on): requests of a node
 * (user `system:node:<name>` in group `system:nodes`) to secrets, configmaps, persistent
 * volumes and claims, resource claims, volume attachments, service account tokens, pods and
 * resource slices are allowed only for objects the node reaches in the graph (`node-graph.ts`);
 * its own Node, Lease and CSINode by name; everything else by the static rules of the
 * `system:node` ClusterRole. A refusal is a NoOpinion with kube's reason, so a later mode
 * (RBAC) may still allow. Requests of other users are not this mode's business.
 */
import { bootstrapPolicy } from '@kapi/catalog';
import type { Attributes, Authorizer, AuthorizerResult, UserRules } from './authorizer.js';
import type { NodeGraph, VertexType } from './node-graph.js';
import { ruleAllows, type PolicyRule } from './rbac-rules.js';
import type { UserInfo } from './user.js';

export const NODES_GROUP = 'system:nodes';
const NODE_USER_PREFIX = 'system:node:';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** kube's default NodeIdentifier: the node name ('' when the user is a node of no name), or undefined for other users. */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.name.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined;
  return user.name.slice(NODE_USER_PREFIX.length);
}

/** The `system:node` ClusterRole's rules (kube's bootstrappolicy.NodeRules). */
function nodeRules(): readonly PolicyRule[] {
  const role = bootstrapPolicy().clusterRoles.find((r) => (r['metadata'] as { name?: string } | undefined)?.name === 'system:node');
  return (role?.['rules'] as PolicyRule[] | undefined) ?? [];
}

const ALLOW: AuthorizerResult = { decision: 'Allow', reason: '' };
const noOpinion = (reason: string): AuthorizerResult => ({ decision: 'NoOpinion', reason });

export function nodeAuthorizer(graph: NodeGraph): Authorizer {
  const rules = nodeRules();
  const related = (node: string, type: VertexType, attributes: Attributes): AuthorizerResult => {
    if (attributes.name === '') return noOpinion('No Object name found');
    return graph.reaches(node, type, attributes.namespace, attributes.name) ? ALLOW : noOpinion(`no relationship found between node '${node}' and this object`);
  };
  const get = (node: string, type: VertexType, a: Attributes): AuthorizerResult => {
    if (a.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (a.subresource !== '') return noOpinion('cannot get subresource');
    return related(node, type, a);
  };
  const readNamespaced = (node: string, type: VertexType, a: Attributes): AuthorizerResult => {
    if (!['get', 'list', 'watch'].includes(a.verb)) return noOpinion('can only read resources of this type');
    if (a.subresource !== '') return noOpinion('cannot read subresource');
    if (a.namespace === '') return noOpinion('can only read namespaced object of this type');
    return related(node, type, a);
  };
  const selects = (a: Attributes, field: string, value: string) => (a.fieldSelector ?? []).some((r) => r.field === field && r.operator === '=' && r.value === value);
  const byName = (node: string, a: Attributes, what: string): AuthorizerResult | undefined => {
    if (a.verb !== 'create' && a.name !== node) return noOpinion(`can only access ${what} with the same name as the requesting node`);
    return undefined;
  };

  const resourceRequest = (node: string, a: Attributes): AuthorizerResult | undefined => {
    switch (`${a.apiGroup}/${a.resource}`) {
      case '/secrets':
        return readNamespaced(node, 'secret', a);
      case '/configmaps':
        return readNamespaced(node, 'configmap', a);
      case '/persistentvolumeclaims':
        if (a.subresource === 'status') return ['update', 'patch'].includes(a.verb) ? related(node, 'pvc', a) : noOpinion('can only get/update/patch this type');
        return get(node, 'pvc', a);
      case '/persistentvolumes':
        return get(node, 'pv', a);
      case 'resource.k8s.io/resourceclaims':
        return get(node, 'resourceclaim', a);
      case 'storage.k8s.io/volumeattachments':
        return get(node, 'volumeattachment', a);
      case '/serviceaccounts':
        if (a.verb !== 'create' || a.name === '') return noOpinion('can only create tokens for individual service accounts');
        if (a.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
        return graph.reaches(node, 'serviceAccount', a.namespace, a.name) ? ALLOW : noOpinion(`no relationship found between node '${node}' and this object`);
      case 'coordination.k8s.io/leases':
        if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
        if (a.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
        return byName(node, a, 'node lease') ?? ALLOW;
      case 'storage.k8s.io/csinodes':
        if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
        if (a.subresource !== '') return noOpinion('cannot authorize CSINode subresources');
        return byName(node, a, 'CSINode') ?? ALLOW;
      case 'resource.k8s.io/resourceslices':
        if (a.subresource !== '') return noOpinion('cannot authorize ResourceSlice subresources');
        switch (a.verb) {
          case 'create':
            return ALLOW;
          case 'get': case 'update': case 'patch': case 'delete':
            return related(node, 'resourceslice', a);
          case 'watch': case 'list': case 'deletecollection':
            return selects(a, 'nodeName', node) ? ALLOW : noOpinion('can only list/watch/deletecollection resourceslices with nodeName field selector');
          default:
            return noOpinion('only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection');
        }
      case '/nodes':
        return ownNode(node, a);
      case '/pods':
        return pod(node, a);
      default:
        return undefined;
    }
  };
  const ownNode = (node: string, a: Attributes): AuthorizerResult => {
    if (a.subresource === '') {
      if (['create', 'update', 'patch'].includes(a.verb)) return ALLOW;
      if (['get', 'list', 'watch'].includes(a.verb)) {
        if (a.name === node) return ALLOW;
        return noOpinion(a.name === '' ? `node '${node}' cannot read all nodes, only its own Node object` : `node '${node}' cannot read '${a.name}', only its own Node object`);
      }
    } else if (a.subresource === 'status' && ['update', 'patch'].includes(a.verb)) {
      return ALLOW;
    }
    return noOpinion('');
  };
  const pod = (node: string, a: Attributes): AuthorizerResult => {
    switch (a.subresource) {
      case '':
        if (a.verb === 'get') return get(node, 'pod', a);
        if (a.verb === 'list' || a.verb === 'watch') {
          if (selects(a, 'spec.nodeName', node)) return ALLOW;
          if (a.name !== '') return related(node, 'pod', a);
          return noOpinion('can only list/watch pods with spec.nodeName field selector');
        }
        if (a.verb === 'create' || a.verb === 'delete') return ALLOW;
        break;
      case 'status':
        if (a.verb === 'update' || a.verb === 'patch') return ALLOW;
        break;
      case 'eviction':
        if (a.verb === 'create') return ALLOW;
        break;
    }
    return noOpinion('');
  };

  return {
    authorize(attributes) {
      const node = nodeIdentity(attributes.user);
      if (node === undefined) return noOpinion('');
      if (node === '') return noOpinion(`unknown node for user "${attributes.user.name}"`);
      if (attributes.resourceRequest) {
        const result = resourceRequest(node, attributes);
        if (result !== undefined) return result;
      }
      return rules.some((rule) => ruleAllows(attributes, rule)) ? ALLOW : noOpinion('');
    },
    rulesFor(user): UserRules {
      if (nodeIdentity(user) === undefined) return { resourceRules: [], nonResourceRules: [], incomplete: false, evaluationError: '' };
      return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' };
    },
  };
}
