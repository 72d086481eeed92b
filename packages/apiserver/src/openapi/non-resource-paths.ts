/**
 * The paths of kube's OpenAPI documents that are not resources: discovery (`/api/`,
 * `/api/v1/`, `/apis/`, `/apis/<group>/`, `/apis/<group>/<version>/`), `/version/`, and —
 * where the server serves issuer discovery — `/.well-known/openid-configuration/` and
 * `/openid/v1/jwks/`; each with the schemas of the kinds it answers with. kube publishes them
 * in OpenAPI v2 and as their own v3 documents (`/openapi/v3/api`, `.../apis/<group>`, ...);
 * a group-version's discovery path lives in that group-version's document.
 */
import type { JSONSchemaProps } from '@kapi/machinery';
import type { GroupVersionResources } from '../discovery/api-groups.js';
import { BUILTIN_CONTENT, META, content, operationGroup, ref, tag, type PathItem } from './operations.js';

const API_GROUP = `${META}APIGroup`;
const API_GROUP_LIST = `${META}APIGroupList`;
const API_VERSIONS = `${META}APIVersions`;
const API_RESOURCE_LIST = `${META}APIResourceList`;
const GROUP_VERSION = `${META}GroupVersionForDiscovery`;
const SERVER_ADDRESS = `${META}ServerAddressByClientCIDR`;
const VERSION_INFO = 'io.k8s.apimachinery.pkg.version.Info';

const str: JSONSchemaProps = { type: 'string' };
const gvk = (kind: string) => ({ 'x-kubernetes-group-version-kind': [{ group: '', kind, version: 'v1' }] });
const atomicList = (items: JSONSchemaProps): JSONSchemaProps => ({ type: 'array', items, 'x-kubernetes-list-type': 'atomic' });
const typeMeta = { apiVersion: str, kind: str };

/** The discovery kinds and version.Info, which the catalogue does not carry (its schemas are the served kinds'). */
export const DISCOVERY_SCHEMAS: Readonly<Record<string, JSONSchemaProps>> = {
  [API_GROUP]: {
    description: 'APIGroup names a group and the versions it serves.',
    type: 'object',
    required: ['name', 'versions'],
    properties: {
      ...typeMeta,
      name: str,
      preferredVersion: { allOf: [ref(GROUP_VERSION)] } as JSONSchemaProps,
      serverAddressByClientCIDRs: atomicList({ allOf: [ref(SERVER_ADDRESS)] } as JSONSchemaProps),
      versions: atomicList({ allOf: [ref(GROUP_VERSION)] } as JSONSchemaProps),
    },
    ...gvk('APIGroup'),
  },
  [API_GROUP_LIST]: {
    description: 'APIGroupList lists the groups a server serves under /apis.',
    type: 'object',
    required: ['groups'],
    properties: { ...typeMeta, groups: atomicList({ allOf: [ref(API_GROUP)] } as JSONSchemaProps) },
    ...gvk('APIGroupList'),
  },
  [API_VERSIONS]: {
    description: 'APIVersions lists the versions a server serves under /api.',
    type: 'object',
    required: ['versions', 'serverAddressByClientCIDRs'],
    properties: { ...typeMeta, serverAddressByClientCIDRs: atomicList({ allOf: [ref(SERVER_ADDRESS)] } as JSONSchemaProps), versions: atomicList(str) },
    ...gvk('APIVersions'),
  },
  [GROUP_VERSION]: {
    description: 'GroupVersionForDiscovery names one version of a group.',
    type: 'object',
    required: ['groupVersion', 'version'],
    properties: { groupVersion: str, version: str },
  },
  [SERVER_ADDRESS]: {
    description: 'ServerAddressByClientCIDR says which server address clients in a CIDR should use.',
    type: 'object',
    required: ['clientCIDR', 'serverAddress'],
    properties: { clientCIDR: str, serverAddress: str },
  },
  [VERSION_INFO]: {
    description: 'Info describes the build of the server.',
    type: 'object',
    required: ['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform'],
    properties: Object.fromEntries(['buildDate', 'compiler', 'gitCommit', 'gitTreeState', 'gitVersion', 'goVersion', 'major', 'minor', 'platform'].map((k) => [k, str])),
  },
};

/** The operations whose v2 form says nothing about what they consume (kube's issuer discovery routes). */
export const NO_CONSUMES: ReadonlySet<string> = new Set(['getServiceAccountIssuerOpenIDConfiguration', 'getServiceAccountIssuerOpenIDKeyset']);

function getOperation(tags: string, operationId: string, description: string, media: readonly string[], schema: Record<string, unknown>): PathItem {
  return { get: { tags: [tags], description, operationId, responses: { '200': { description: 'OK', content: content(media, schema) }, '401': { description: 'Unauthorized' } } } };
}

/** `/api/v1/` or `/apis/<group>/<version>/`: the group-version's resource list, in its own document. */
export function groupVersionDiscoveryPath(gv: GroupVersionResources): Record<string, PathItem> {
  const path = gv.group === '' ? `/api/${gv.version}/` : `/apis/${gv.group}/${gv.version}/`;
  return { [path]: getOperation(tag(gv.group, gv.version), `get${operationGroup(gv.group, gv.version)}APIResources`, 'get available resources', BUILTIN_CONTENT, ref(API_RESOURCE_LIST)) };
}

/**
 * The non-resource documents by their `/openapi/v3/<key>`: `api`, `apis`, `apis/<group>` for
 * each built-in group (custom resources' groups have none), `version`, and the issuer
 * discovery ones when `issuerDiscovery`.
 */
export function nonResourcePaths(builtinGroups: readonly string[], issuerDiscovery: boolean): Map<string, Record<string, PathItem>> {
  const out = new Map<string, Record<string, PathItem>>();
  if (issuerDiscovery) {
    out.set('.well-known/openid-configuration', {
      '/.well-known/openid-configuration/': getOperation('WellKnown', 'getServiceAccountIssuerOpenIDConfiguration', "get the service account issuer's OpenID provider configuration", ['application/json'], { type: 'string' }),
    });
  }
  out.set('api', { '/api/': getOperation('core', 'getCoreAPIVersions', 'get the versions of the core API', BUILTIN_CONTENT, ref(API_VERSIONS)) });
  out.set('apis', { '/apis/': getOperation('apis', 'getAPIVersions', 'get the API groups and their versions', BUILTIN_CONTENT, ref(API_GROUP_LIST)) });
  for (const group of builtinGroups) {
    if (group === '') continue;
    out.set(`apis/${group}`, { [`/apis/${group}/`]: getOperation(tag(group), `get${operationGroup(group)}APIGroup`, 'get information of a group', BUILTIN_CONTENT, ref(API_GROUP)) });
  }
  if (issuerDiscovery) {
    out.set('openid/v1/jwks', {
      '/openid/v1/jwks/': getOperation('openid', 'getServiceAccountIssuerOpenIDKeyset', "get the service account issuer's token verification keys (a JSON Web Key Set)", ['application/jwk-set+json'], { type: 'string' }),
    });
  }
  out.set('version', { '/version/': getOperation('version', 'getCodeVersion', 'get the code version', ['application/json'], ref(VERSION_INFO)) });
  return out;
}
