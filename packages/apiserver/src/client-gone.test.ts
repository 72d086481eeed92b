import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRegistry, definitions } from '@kapi/registry';
import { createEtcdStorage, type EtcdStorage } from '@kapi/storage';
import { startEtcd, uniquePrefix, type TestEtcd } from '@kapi/storage/testing';
import type { HealthCheck } from './health.js';
import { silentLogger, type Logger } from './logger.js';
import { createApiMetrics } from './metrics.js';
import { createRequestHandler } from './server.js';

// A balancer's probe that gives up before a slow check finishes is not a server error.
void describe('a client that goes away before the answer', () => {
  let etcd: TestEtcd;
  let storage: EtcdStorage;
  let server: Server;
  let port: number;
  const errors: string[] = [];
  let finishedChecks = 0;
  const slow: HealthCheck = {
    name: 'slow',
    check: () => new Promise((resolve) => setTimeout(() => { finishedChecks++; resolve(); }, 300)),
  };

  before(async () => {
    etcd = await startEtcd();
    storage = createEtcdStorage({ endpoints: etcd.endpoints });
    const logger: Logger = { ...silentLogger, error: (message) => errors.push(message) };
    const handler = createRequestHandler({
      registry: createRegistry({ storage, prefix: uniquePrefix() }),
      definitions,
      metrics: createApiMetrics(),
      health: { livez: [slow], healthz: [slow], readyz: [slow] },
      requestTimeoutMs: 10_000,
      logger,
    });
    server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await storage.close();
    await etcd.stop();
  });

  void it('logs no internal error when a probe disconnects before a slow check ends', async () => {
    const before = finishedChecks;
    await new Promise<void>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/readyz', timeout: 50 });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve());
      req.on('response', () => assert.fail('the slow check answered within 50 ms'));
      req.end();
    });
    while (finishedChecks === before) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(errors, []);
  });
});
