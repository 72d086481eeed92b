/**
 * A small metrics-server-like aggregated API server for tests: HTTPS, serves
 * metrics.k8s.io/v1beta1 discovery and NodeMetrics/PodMetrics lists and gets from fixed
 * numbers, and accepts only requests that present the front-proxy client certificate (signed
 * by `proxyCa`, CN `allowedName`) with an X-Remote-User header, as metrics-server does with
 * kube's requestheader authentication. Every request it saw is recorded.
 */
import { createServer, type Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly user: string | undefined;
  readonly groups: string[];
  readonly clientCn: string | undefined;
  readonly authorization: string | undefined;
}

export interface MetricsBackend {
  readonly port: number;
  readonly seen: SeenRequest[];
  stop(): Promise<void>;
}

export interface MetricsBackendOptions {
  readonly cert: string;
  readonly key: string;
  readonly proxyCa: string;
  readonly allowedName: string;
  readonly host: string;
  readonly nodes: Record<string, { cpu: string; memory: string }>;
  /** namespace → pod → container → usage. */
  readonly pods: Record<string, Record<string, Record<string, { cpu: string; memory: string }>>>;
}

const GV = 'metrics.k8s.io/v1beta1';
const TIMESTAMP = '2026-11-27T10:00:00Z';

/** A small OpenAPI v3 document of the group-version: enough for `kubectl explain`. */
const OPENAPI = {
  openapi: '3.0.0',
  info: { title: 'metrics-backend', version: 'v0.0.1' },
  paths: {
    '/apis/metrics.k8s.io/v1beta1/namespaces/{namespace}/pods/{name}': {
      get: {
        operationId: 'readMetricsV1beta1NamespacedPodMetrics',
        responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/io.k8s.metrics.pkg.apis.metrics.v1beta1.PodMetrics' } } } } },
        'x-kubernetes-action': 'get',
        'x-kubernetes-group-version-kind': { group: 'metrics.k8s.io', version: 'v1beta1', kind: 'PodMetrics' },
      },
    },
  },
  components: {
    schemas: {
      'io.k8s.metrics.pkg.apis.metrics.v1beta1.PodMetrics': {
        description: 'PodMetrics sets resource usage metrics of a pod.',
        type: 'object',
        required: ['timestamp', 'window', 'containers'],
        properties: {
          apiVersion: { description: 'APIVersion of the object.', type: 'string' },
          kind: { description: 'Kind of the object.', type: 'string' },
          timestamp: { description: 'The following fields define time interval from which metrics were collected.', type: 'string', format: 'date-time' },
          window: { type: 'string' },
          containers: { description: 'Metrics for all containers are collected within the same time window.', type: 'array', items: { type: 'object' } },
        },
        'x-kubernetes-group-version-kind': [{ group: 'metrics.k8s.io', kind: 'PodMetrics', version: 'v1beta1' }],
      },
    },
  },
};

function nodeMetrics(name: string, usage: { cpu: string; memory: string }) {
  return { metadata: { name, creationTimestamp: TIMESTAMP }, timestamp: TIMESTAMP, window: '10s', usage };
}

function podMetrics(namespace: string, name: string, containers: Record<string, { cpu: string; memory: string }>) {
  return {
    metadata: { name, namespace, creationTimestamp: TIMESTAMP },
    timestamp: TIMESTAMP,
    window: '10s',
    containers: Object.entries(containers).map(([c, usage]) => ({ name: c, usage })),
  };
}

export async function startMetricsBackend(options: MetricsBackendOptions): Promise<MetricsBackend> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer({ cert: options.cert, key: options.key, ca: options.proxyCa, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const socket = req.socket as TLSSocket;
    const peer = socket.getPeerCertificate();
    const clientCn = socket.authorized && peer.subject !== undefined ? String(peer.subject.CN) : undefined;
    const user = req.headers['x-remote-user'] as string | undefined;
    const groups = req.headersDistinct['x-remote-group'] ?? [];
    const path = (req.url ?? '/').split('?')[0]!;
    seen.push({ method: req.method ?? '', path, user, groups, clientCn, authorization: req.headers.authorization });
    const send = (code: number, body: unknown) => {
      const text = JSON.stringify(body);
      res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    };
    const status = (code: number, reason: string, message: string) => send(code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
    if (clientCn !== options.allowedName) return status(401, 'Unauthorized', 'Unauthorized');
    if (user === undefined || user === '') return status(401, 'Unauthorized', 'Unauthorized');
    if (path === '/openapi/v3') return send(200, { paths: { [`apis/${GV}`]: { serverRelativeURL: `/openapi/v3/apis/${GV}?hash=B4C4` } } });
    if (path === `/openapi/v3/apis/${GV}`) return send(200, OPENAPI);
    const parts = path.split('/').filter((p) => p !== '');
    if (parts[0] !== 'apis' || `${parts[1]}/${parts[2]}` !== GV) return status(404, 'NotFound', 'the server could not find the requested resource');
    const rest = parts.slice(3);
    if (rest[0] === 'redirect') {
      res.writeHead(302, { Location: 'https://example.com/elsewhere', 'Content-Length': '0' });
      res.end();
      return;
    }
    if (rest.length === 0) {
      return send(200, {
        kind: 'APIResourceList', apiVersion: 'v1', groupVersion: GV,
        resources: [
          { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
          { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
        ],
      });
    }
    if (rest[0] === 'nodes' && rest.length === 1 && new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('watch') === '1') {
      // A watch: one event at once, a second after 1.5 s, then the end (a proxy that buffers shows it).
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      const [first, second] = Object.entries(options.nodes);
      res.write(`${JSON.stringify({ type: 'ADDED', object: { kind: 'NodeMetrics', apiVersion: GV, ...nodeMetrics(first![0], first![1]) } })}\n`);
      const timer = setTimeout(() => res.end(`${JSON.stringify({ type: 'ADDED', object: { kind: 'NodeMetrics', apiVersion: GV, ...nodeMetrics(second![0], second![1]) } })}\n`), 1500);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (rest[0] === 'nodes') {
      if (rest.length === 1) return send(200, { kind: 'NodeMetricsList', apiVersion: GV, metadata: {}, items: Object.entries(options.nodes).map(([n, u]) => nodeMetrics(n, u)) });
      const usage = options.nodes[rest[1]!];
      if (usage === undefined) return status(404, 'NotFound', `nodemetrics.metrics.k8s.io "${rest[1]}" not found`);
      return send(200, { kind: 'NodeMetrics', apiVersion: GV, ...nodeMetrics(rest[1]!, usage) });
    }
    const all = Object.entries(options.pods).flatMap(([ns, pods]) => Object.entries(pods).map(([name, c]) => podMetrics(ns, name, c)));
    if (rest[0] === 'pods' && rest.length === 1) return send(200, { kind: 'PodMetricsList', apiVersion: GV, metadata: {}, items: all });
    if (rest[0] === 'namespaces' && rest[2] === 'pods') {
      const inNs = all.filter((p) => p.metadata.namespace === rest[1]);
      if (rest.length === 3) return send(200, { kind: 'PodMetricsList', apiVersion: GV, metadata: {}, items: inNs });
      const pod = inNs.find((p) => p.metadata.name === rest[3]);
      if (pod === undefined) return status(404, 'NotFound', `podmetrics.metrics.k8s.io "${rest[3]}" not found`);
      return send(200, { kind: 'PodMetrics', apiVersion: GV, ...pod });
    }
    return status(404, 'NotFound', 'the server could not find the requested resource');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    stop: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
