/**
 * core/v1 Service: kube's v1 defaults (type ClusterIP, sessionAffinity None, port protocol
 * TCP, targetPort = port, externalTrafficPolicy Cluster where traffic comes from outside,
 * internalTrafficPolicy Cluster, allocateLoadBalancerNodePorts for LoadBalancers), the
 * clusterIP/clusterIPs pairing, what a type change wipes, what an update that leaves out
 * allocated values keeps, validation clients meet, and kubectl's columns. Cluster IPs and
 * node ports are reserved around writes by service-network/service-allocator.ts. Field
 * selectors: spec.clusterIP, spec.type.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { ageColumn, column, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, isDNS1123Label, isDNS1123Subdomain, nameColumn } from '@kapi/machinery';
import type { ResourceDefinition } from '../../definition.js';
import { builtinStrategy, recordAt, stringAt } from '../../builtin/builtin-strategy.js';
import { semanticEqual } from '../../semantic-equal.js';
import { NONE, formatLabels, loadBalancerIngress } from './network-columns.js';
import { clusterIPsOf, goStrings, needsClusterIP, needsHealthCheckNodePort, needsNodePorts, portsOf, specOf, typeOf } from './service-network/service-allocator.js';
import { parseIP } from './service-network/ranges.js';

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
/** kube's DefaultClientIPServiceAffinitySeconds. */
const DEFAULT_CLIENT_IP_TIMEOUT = 10800;

const externallyAccessible = (svc: KubeObject): boolean =>
  typeOf(svc) === 'LoadBalancer' || typeOf(svc) === 'NodePort' || (typeOf(svc) === 'ClusterIP' && Array.isArray(specOf(svc)['externalIPs']) && (specOf(svc)['externalIPs'] as unknown[]).length > 0);

/** kube's SetDefaults_Service. Mutates `svc`. */
export function defaultService(svc: KubeObject): void {
  if (typeof svc['spec'] !== 'object' || svc['spec'] === null) svc['spec'] = {};
  const spec = specOf(svc);
  if (spec['sessionAffinity'] === undefined || spec['sessionAffinity'] === '') spec['sessionAffinity'] = 'None';
  if (spec['sessionAffinity'] === 'None') delete spec['sessionAffinityConfig'];
  if (spec['sessionAffinity'] === 'ClientIP') {
    const clientIP = recordAt(recordAt(spec, 'sessionAffinityConfig') ?? {}, 'clientIP');
    if (clientIP?.['timeoutSeconds'] === undefined) spec['sessionAffinityConfig'] = { clientIP: { timeoutSeconds: DEFAULT_CLIENT_IP_TIMEOUT } };
  }
  if (spec['type'] === undefined || spec['type'] === '') spec['type'] = 'ClusterIP';
  for (const port of portsOf(svc)) {
    if (port['protocol'] === undefined || port['protocol'] === '') port['protocol'] = 'TCP';
    if (port['targetPort'] === undefined || port['targetPort'] === 0 || port['targetPort'] === '') port['targetPort'] = port['port'];
  }
  if (externallyAccessible(svc) && (spec['externalTrafficPolicy'] === undefined || spec['externalTrafficPolicy'] === '')) spec['externalTrafficPolicy'] = 'Cluster';
  if (spec['internalTrafficPolicy'] === undefined && ['NodePort', 'LoadBalancer', 'ClusterIP'].includes(typeOf(svc))) spec['internalTrafficPolicy'] = 'Cluster';
  if (typeOf(svc) === 'LoadBalancer' && spec['allocateLoadBalancerNodePorts'] === undefined) spec['allocateLoadBalancerNodePorts'] = true;
}

/** kube's NormalizeClusterIPs: clusterIPs follows a clusterIP the client set or changed alone. */
function normalizeClusterIPs(svc: KubeObject, old: KubeObject | undefined): void {
  const spec = specOf(svc);
  const ip = typeof spec['clusterIP'] === 'string' ? spec['clusterIP'] : '';
  const ips = clusterIPsOf(svc);
  if (old === undefined) {
    if (ip !== '' && ips.length === 0) spec['clusterIPs'] = [ip];
    return;
  }
  const oldSpec = specOf(old);
  if (ip !== oldSpec['clusterIP'] && semanticEqual(spec['clusterIPs'], oldSpec['clusterIPs'])) {
    if (ip === '') delete spec['clusterIPs'];
    else spec['clusterIPs'] = [ip];
  }
}

/** kube's patchAllocatedValues: an update that leaves out allocated values keeps them. */
function patchAllocatedValues(svc: KubeObject, old: KubeObject): void {
  const spec = specOf(svc);
  const oldSpec = specOf(old);
  if (needsClusterIP(old) && needsClusterIP(svc)) {
    if (spec['clusterIP'] === undefined || spec['clusterIP'] === '') {
      if (oldSpec['clusterIP'] !== undefined) spec['clusterIP'] = oldSpec['clusterIP'];
    }
    if (clusterIPsOf(svc).length === 0 && clusterIPsOf(old).length > 0) spec['clusterIPs'] = [...clusterIPsOf(old)];
  }
  if (needsNodePorts(old) && needsNodePorts(svc)) {
    const used = new Set(portsOf(svc).map((p) => p['nodePort']).filter((n) => typeof n === 'number' && n !== 0));
    const byName = new Map(portsOf(old).map((p) => [p['name'] ?? '', p['nodePort']]));
    for (const port of portsOf(svc)) {
      if (port['nodePort'] !== undefined && port['nodePort'] !== 0) continue;
      const previous = byName.get(port['name'] ?? '');
      if (typeof previous === 'number' && previous !== 0 && !used.has(previous)) port['nodePort'] = previous;
    }
  }
  if (needsHealthCheckNodePort(old) && needsHealthCheckNodePort(svc) && (spec['healthCheckNodePort'] ?? 0) === 0 && oldSpec['healthCheckNodePort'] !== undefined) {
    spec['healthCheckNodePort'] = oldSpec['healthCheckNodePort'];
  }
}

/** kube's dropTypeDependentFields: a type change wipes what the new type does not use, if the client left it as it was. */
function dropTypeDependentFields(svc: KubeObject, old: KubeObject): void {
  const spec = specOf(svc);
  const oldSpec = specOf(old);
  const same = (field: string) => semanticEqual(spec[field], oldSpec[field]);
  if (needsClusterIP(old) && !needsClusterIP(svc)) {
    if (same('clusterIP') && same('clusterIPs')) {
      delete spec['clusterIP'];
      delete spec['clusterIPs'];
    }
    if (same('ipFamilies')) delete spec['ipFamilies'];
    if (same('ipFamilyPolicy')) delete spec['ipFamilyPolicy'];
  }
  if (needsNodePorts(old) && !needsNodePorts(svc)) {
    const oldPorts = portsOf(old).map((p) => p['nodePort'] ?? 0);
    if (semanticEqual(portsOf(svc).map((p) => p['nodePort'] ?? 0), oldPorts)) for (const port of portsOf(svc)) delete port['nodePort'];
  }
  if (needsHealthCheckNodePort(old) && !needsHealthCheckNodePort(svc) && same('healthCheckNodePort')) delete spec['healthCheckNodePort'];
  if (needsClusterIP(old) && !needsClusterIP(svc) && same('internalTrafficPolicy')) delete spec['internalTrafficPolicy'];
  if (typeOf(svc) !== 'LoadBalancer') {
    if (same('allocateLoadBalancerNodePorts')) delete spec['allocateLoadBalancerNodePorts'];
    if (same('loadBalancerClass')) delete spec['loadBalancerClass'];
  }
  if (externallyAccessible(old) && !externallyAccessible(svc) && same('externalTrafficPolicy')) delete spec['externalTrafficPolicy'];
}

const IP_EXAMPLE = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

/** kube's IsValidPortName (an IANA service name). */
function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.startsWith('-') || name.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

function validatePorts(svc: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const ports = portsOf(svc);
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const path = `spec.ports[${i}]`;
    const name = typeof port['name'] === 'string' ? port['name'] : '';
    if (ports.length > 1 && name === '') errs.push(fieldRequired(`${path}.name`));
    else if (name !== '') {
      for (const msg of isDNS1123Label(name)) errs.push(fieldInvalid(`${path}.name`, name, msg));
      if (names.has(name)) errs.push({ type: 'FieldValueDuplicate', field: `${path}.name`, message: `Duplicate value: "${name}"` });
      names.add(name);
    }
    const number = port['port'];
    if (typeof number !== 'number' || number < 1 || number > 65535) errs.push(fieldInvalid(`${path}.port`, number ?? 0, 'must be between 1 and 65535, inclusive'));
    if (!PROTOCOLS.includes(String(port['protocol']))) errs.push(fieldNotSupported(`${path}.protocol`, port['protocol'], PROTOCOLS));
    const target = port['targetPort'];
    if (typeof target === 'number' && (target < 1 || target > 65535)) errs.push(fieldInvalid(`${path}.targetPort`, target, 'must be between 1 and 65535, inclusive'));
    if (typeof target === 'string') for (const msg of portNameErrors(target)) errs.push(fieldInvalid(`${path}.targetPort`, target, msg));
    const nodePort = port['nodePort'];
    if (nodePort !== undefined && nodePort !== 0 && !needsNodePorts(svc)) errs.push(fieldForbidden(`${path}.nodePort`, `may not be used when \`type\` is '${typeOf(svc)}'`));
  });
  return errs;
}

function validateService(svc: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(svc);
  const type = typeOf(svc);
  if (!SERVICE_TYPES.includes(type)) errs.push(fieldNotSupported('spec.type', type, SERVICE_TYPES));
  const headless = spec['clusterIP'] === 'None';
  if (portsOf(svc).length === 0 && !headless && type !== 'ExternalName') errs.push(fieldRequired('spec.ports'));
  errs.push(...validatePorts(svc));
  if (!['None', 'ClientIP'].includes(String(spec['sessionAffinity']))) errs.push(fieldNotSupported('spec.sessionAffinity', spec['sessionAffinity'], ['ClientIP', 'None']));
  const ip = typeof spec['clusterIP'] === 'string' ? spec['clusterIP'] : '';
  const ips = clusterIPsOf(svc);
  if (type === 'ExternalName') {
    const name = typeof spec['externalName'] === 'string' ? spec['externalName'] : '';
    if (name === '') errs.push(fieldRequired('spec.externalName'));
    else for (const msg of isDNS1123Subdomain(name.replace(/\.$/, ''))) errs.push(fieldInvalid('spec.externalName', name, msg));
    if (ip !== '') errs.push(fieldForbidden('spec.clusterIP', 'may not be set for ExternalName services'));
    if (ips.length > 0) errs.push(fieldForbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
  } else {
    if (ip !== '' && ips.length > 0 && ips[0] !== ip) errs.push({ type: 'FieldValueInvalid', field: 'spec.clusterIPs', message: `Invalid value: ${goStrings(ips)}: first value must match \`clusterIP\`` });
    ips.forEach((value, i) => {
      if (value !== 'None' && parseIP(value) === undefined) errs.push(fieldInvalid(`spec.clusterIPs[${i}]`, value, IP_EXAMPLE));
      if (value === 'None' && i > 0) errs.push(fieldInvalid(`spec.clusterIPs[${i}]`, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
    });
  }
  const affinity = spec['externalTrafficPolicy'];
  if (affinity !== undefined && affinity !== '' && !externallyAccessible(svc)) {
    errs.push(fieldInvalid('spec.externalTrafficPolicy', affinity, 'may only be set for externally-accessible services'));
  } else if (affinity !== undefined && affinity !== '' && !['Cluster', 'Local'].includes(String(affinity))) {
    errs.push(fieldNotSupported('spec.externalTrafficPolicy', affinity, ['Cluster', 'Local']));
  }
  return errs;
}

/** kube's validateUpgradeDowngradeClusterIPs for a single-stack cluster: allocated IPs do not change, except to or from ExternalName. */
function validateServiceUpdate(svc: KubeObject, old: KubeObject): FieldError[] {
  if (typeOf(svc) === 'ExternalName' || typeOf(old) === 'ExternalName') return [];
  const before = clusterIPsOf(old);
  const after = clusterIPsOf(svc);
  if (before[0] === 'None' && after[0] === 'None') return [];
  const errs: FieldError[] = [];
  const invalidIPs = (field: string, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, message: `Invalid value: ${goStrings(after)}: ${detail}` });
  if (after.length === 0 && before.length > 0) errs.push(invalidIPs('spec.clusterIPs[0]', 'primary clusterIP can not be unset'));
  before.forEach((ip, i) => {
    if (after[i] !== undefined && after[i] !== ip) errs.push(invalidIPs(`spec.clusterIPs[${i}]`, 'may not change once set'));
  });
  return errs;
}

/** kube's ValidateLoadBalancerStatus on `status.loadBalancer.ingress` (the /status subresource). */
function validateServiceStatus(svc: KubeObject): FieldError[] {
  const ingress = recordAt(recordAt(svc, 'status') ?? {}, 'loadBalancer')?.['ingress'];
  const errs: FieldError[] = [];
  (Array.isArray(ingress) ? (ingress as Record<string, unknown>[]) : []).forEach((entry, i) => {
    const path = `status.loadBalancer.ingress[${i}]`;
    const ip = typeof entry['ip'] === 'string' ? entry['ip'] : '';
    const hostname = typeof entry['hostname'] === 'string' ? entry['hostname'] : '';
    if (ip !== '' && parseIP(ip) === undefined) errs.push(fieldInvalid(`${path}.ip`, ip, IP_EXAMPLE));
    if (entry['ipMode'] !== undefined && ip === '') errs.push(fieldForbidden(`${path}.ipMode`, 'may not be specified when `ip` is not set'));
    else if (entry['ipMode'] !== undefined && !['VIP', 'Proxy'].includes(String(entry['ipMode']))) errs.push(fieldNotSupported(`${path}.ipMode`, entry['ipMode'], ['Proxy', 'VIP']));
    if (hostname !== '') {
      for (const msg of isDNS1123Subdomain(hostname)) errs.push(fieldInvalid(`${path}.hostname`, hostname, msg));
      if (parseIP(hostname) !== undefined) errs.push(fieldInvalid(`${path}.hostname`, hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

function externalIP(svc: KubeObject): string {
  const external = Array.isArray(specOf(svc)['externalIPs']) ? (specOf(svc)['externalIPs'] as unknown[]).map(String) : [];
  switch (typeOf(svc)) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : NONE;
    case 'LoadBalancer': {
      const lb = loadBalancerIngress(recordAt(recordAt(svc, 'status') ?? {}, 'loadBalancer'));
      if (external.length > 0) return [...(lb === '' ? [] : lb.split(',')), ...external].join(',');
      return lb !== '' ? lb : '<pending>';
    }
    case 'ExternalName':
      return String(specOf(svc)['externalName'] ?? '');
    default:
      return '<unknown>';
  }
}

function portsText(svc: KubeObject): string {
  const out = portsOf(svc).map((p) => {
    const protocol = String(p['protocol'] ?? 'TCP');
    const nodePort = typeof p['nodePort'] === 'number' ? p['nodePort'] : 0;
    return nodePort > 0 ? `${String(p['port'])}:${nodePort}/${protocol}` : `${String(p['port'])}/${protocol}`;
  });
  return out.length === 0 ? NONE : out.join(',');
}

/** kubectl's NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE, and SELECTOR with -o wide. */
export const serviceColumns = [
  nameColumn,
  column('Type', 'string', 'How the Service is exposed: ClusterIP, NodePort, LoadBalancer or ExternalName.', (obj) => typeOf(obj)),
  column('Cluster-IP', 'string', 'The Service\'s virtual IP inside the cluster ("None" for a headless Service).', (obj) => {
    const ip = specOf(obj)['clusterIP'];
    return typeof ip === 'string' && ip !== '' ? ip : NONE;
  }),
  column('External-IP', 'string', 'Addresses outside the cluster that reach the Service: external IPs, load-balancer ingress or the external name.', (obj) => externalIP(obj)),
  column('Port(s)', 'string', 'The ports the Service exposes, with their node ports.', portsText),
  ageColumn,
  column('Selector', 'string', 'The pod labels whose pods back the Service.', (obj) => formatLabels(specOf(obj)['selector']), { priority: 1 }),
];

/** What services do beyond the generic built-in store (their reservations are the registry's, see registry.ts). */
export const serviceBehaviour: Partial<ResourceDefinition> = {
  printerColumns: serviceColumns,
  // kube's field labels for Services (kube-proxy lists `spec.clusterIP!=None`).
  selectableFields: {
    'spec.clusterIP': (obj) => stringAt(obj, ['spec', 'clusterIP']) ?? '',
    'spec.type': (obj) => stringAt(obj, ['spec', 'type']) ?? '',
  },
  strategy: builtinStrategy({
    decode: defaultService,
    prepareForCreate(obj) {
      obj['status'] = { loadBalancer: {} };
      normalizeClusterIPs(obj, undefined);
    },
    prepareForUpdate(obj, old) {
      patchAllocatedValues(obj, old);
      normalizeClusterIPs(obj, old);
      dropTypeDependentFields(obj, old);
    },
    validate: validateService,
    validateUpdate: validateServiceUpdate,
    validateSubresourceUpdate: (subresource, obj) => (subresource === 'status' ? validateServiceStatus(obj) : []),
  }),
};
