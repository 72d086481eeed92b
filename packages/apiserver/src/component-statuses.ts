/**
 * core/v1 componentstatuses as kube-apiserver 1.32 serves them (deprecated since v1.19, get
 * and list only, nothing stored): each read probes the components again — `scheduler` and
 * `controller-manager` at kube's default secure ports on 127.0.0.1 (`/healthz` over HTTPS,
 * certificates not checked) and `etcd-0` through the server's own etcd health check. A
 * component that answers 2xx/3xx is Healthy with the body as its message; otherwise it is
 * Unhealthy with the probe's error (Go's texts: `Get "<url>": dial tcp ...: connect:
 * connection refused`). An unknown name is kube's 500 `Component not found: <name>`.
 */
import { request } from 'node:https';
import type { KubeObject, PrinterColumn } from '@kapi/machinery';
import { StatusError, column, nameColumn } from '@kapi/machinery';
import { catalogDefinition, checkFieldSelector, selectionPredicate, type RestResource } from '@kapi/registry';
import { servedGroups } from '@kapi/catalog';

/** kube's ports.KubeControllerManagerPort and the scheduler's DefaultKubeSchedulerPort. */
const HTTP_COMPONENTS: readonly [string, number][] = [
  ['scheduler', 10259],
  ['controller-manager', 10257],
];
/** kube's probeTimeOut. */
const PROBE_TIMEOUT_MS = 20_000;
/** kube's HTTP probes read at most this much of a body. */
const MAX_BODY_BYTES = 10 * 1024;

export interface ComponentStatusDependencies {
  /** The server's etcd health check: resolves when etcd answers, rejects with the reason. */
  checkEtcd(): Promise<void>;
  /** Where the HTTP components are probed (tests); default 127.0.0.1 and kube's ports. */
  components?: readonly [name: string, url: string][];
}

interface Probe {
  healthy: boolean;
  message: string;
}

/** Go's wording of a failed GET. */
function goHttpError(url: string, err: NodeJS.ErrnoException): string {
  const { host } = new URL(url);
  if (err.code === 'ECONNREFUSED') return `Get "${url}": dial tcp ${host}: connect: connection refused`;
  if (err.code === 'ETIMEDOUT') return `Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
  return `Get "${url}": ${err.message}`;
}

function probeHttp(url: string): Promise<Probe> {
  return new Promise((resolve) => {
    const req = request(url, { rejectUnauthorized: false, timeout: PROBE_TIMEOUT_MS, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size < MAX_BODY_BYTES) chunks.push(chunk.subarray(0, MAX_BODY_BYTES - size));
        size += chunk.length;
      });
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 400) resolve({ healthy: true, message: Buffer.concat(chunks).toString('utf8') });
        else resolve({ healthy: false, message: `HTTP probe failed with statuscode: ${status}` });
      });
      res.on('error', (err) => resolve({ healthy: false, message: goHttpError(url, err) }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', (err) => resolve({ healthy: false, message: goHttpError(url, err) }));
    req.end();
  });
}

function componentStatus(name: string, probe: Probe): KubeObject {
  return {
    kind: 'ComponentStatus',
    apiVersion: 'v1',
    metadata: { name, creationTimestamp: null as unknown as string },
    conditions: [{ type: 'Healthy', status: probe.healthy ? 'True' : 'False', message: probe.message }],
  };
}

type Condition = { type?: string; status?: string; message?: string; error?: string };
const healthyCondition = (cs: KubeObject): Condition | undefined => ((cs['conditions'] as Condition[] | undefined) ?? []).find((c) => c.type === 'Healthy');

/** kubectl's NAME STATUS MESSAGE ERROR. */
export const componentStatusColumns: readonly PrinterColumn[] = [
  nameColumn,
  column('Status', 'string', 'Whether the component answers its health check.', (cs) => {
    const condition = healthyCondition(cs);
    return condition === undefined ? 'Unknown' : condition.status === 'True' ? 'Healthy' : 'Unhealthy';
  }),
  column('Message', 'string', 'What the health check answered.', (cs) => healthyCondition(cs)?.message ?? ''),
  column('Error', 'string', 'Why the health check could not run.', (cs) => healthyCondition(cs)?.error ?? ''),
];

/** The componentstatuses resource (one per served version: v1). */
export function componentStatusResource(deps: ComponentStatusDependencies): RestResource {
  const core = servedGroups().find((g) => g.group === '')!;
  const generated = catalogDefinition(core, 'componentstatuses');
  const definition = {
    ...generated,
    versions: generated.versions.map((v) => ({ ...v, deprecated: { deprecatedRelease: '1.19' } })),
    printerColumns: componentStatusColumns,
  };
  const components = deps.components ?? HTTP_COMPONENTS.map(([name, port]) => [name, `https://127.0.0.1:${port}/healthz`] as const);
  const probeEtcd = async (): Promise<Probe> => {
    try {
      await deps.checkEtcd();
      return { healthy: true, message: 'ok' };
    } catch (err) {
      return { healthy: false, message: err instanceof Error ? err.message : String(err) };
    }
  };
  const probes = (): [string, () => Promise<Probe>][] => [...components.map(([name, url]) => [name, () => probeHttp(url)] as [string, () => Promise<Probe>]), ['etcd-0', probeEtcd]];
  return {
    definition,
    version: 'v1',
    getter: {
      async get(_req, name) {
        const probe = probes().find(([n]) => n === name);
        if (probe === undefined) throw new StatusError({ code: 500, message: `Component not found: ${name}` });
        return componentStatus(name, await probe[1]());
      },
    },
    lister: {
      async list(_req, options) {
        checkFieldSelector(definition, options.fieldSelector);
        const predicate = selectionPredicate(definition, options.labelSelector, options.fieldSelector);
        const all = await Promise.all(probes().map(async ([name, probe]) => componentStatus(name, await probe())));
        return { apiVersion: 'v1', kind: 'ComponentStatusList', metadata: {}, items: all.filter((cs) => predicate.matches(cs)) };
      },
    },
  };
}
