/**
 * client-go against a target, with the existing Go programs (they take a kubeconfig, so they
 * are target-agnostic): the typed clientset's CRUD/paging/watch steps over protobuf
 * (e2e/go-typed `kapi-typed crud`), the field-by-field round trip of a Pod, Deployment,
 * Service and Node with every field set (`kapi-typed roundtrip`), a typed informer (`kapi-typed informer`) and the dynamic
 * client's SharedIndexInformer (e2e/go `kapi-reflector`, JSON), both kept in sync under churn.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { churnConfigMaps, seedConfigMaps } from '../harness/churn.js';
import { buildGoCommand, LineProcess } from '../harness/go-program.js';
import { ensureNamespace, type RestClient } from '../harness/rest.js';
import { buildKapiTyped } from '../representations/go-typed.js';
import type { TargetRef } from './targets.js';

export function clientGoSuite(target: TargetRef): void {
  void describe('client-go', () => {
    let typed: string;
    let reflector: string;
    let client: RestClient;
    const processes: LineProcess[] = [];

    before(async () => {
      const [t, r] = await Promise.all([buildKapiTyped(), buildGoCommand('kapi-reflector')]);
      typed = t.binary;
      reflector = r.binary;
      client = target().rest();
    });
    after(async () => {
      for (const p of processes) await p.kill();
      client?.close();
    });
    const start = (binary: string, args: string[]): LineProcess => {
      const p = new LineProcess(binary, args);
      processes.push(p);
      return p;
    };

    void it('typed clientset (protobuf): namespaces and ConfigMaps CRUD, paging, watch, preconditions, deletecollection', async () => {
      const crud = start(typed, ['crud', '--kubeconfig', target().kubeconfig, '--namespace', 'suite-client-go-typed']);
      const done = await crud.next('done', 120_000);
      const failed: Record<string, unknown>[] = [];
      for (;;) {
        const step = await crud.next('step', 1).catch(() => undefined);
        if (!step) break;
        if (step.ok !== true) failed.push(step);
      }
      assert.deepEqual(failed, [], crud.stderr().slice(-4000));
      assert.equal(done.failed, 0);
      assert.ok(Number(done.steps) >= 13, JSON.stringify(done));
      if (target().server.startsWith('https:')) {
        // Over TLS client-go offers h2 by ALPN and kapi takes it: every answer, the watch's
        // included, came over HTTP/2, multiplexed on one connection (the balancer passes TLS through).
        const wire = done.wire as { protocols: Record<string, number>; connections: number };
        assert.deepEqual(Object.keys(wire.protocols), ['HTTP/2.0'], JSON.stringify(wire));
        assert.equal(wire.connections, 1, JSON.stringify(wire));
      }
    });

    void it('typed clientset (protobuf): a Pod, Deployment, Service and Node with every field set round-trip field by field', async () => {
      const roundTrip = start(typed, ['roundtrip', '--kubeconfig', target().kubeconfig, '--namespace', 'suite-client-go-roundtrip']);
      const done = await roundTrip.next('done', 120_000);
      const failed: Record<string, unknown>[] = [];
      for (;;) {
        const step = await roundTrip.next('step', 1).catch(() => undefined);
        if (!step) break;
        if (step.ok !== true) failed.push(step);
      }
      assert.deepEqual(failed, [], roundTrip.stderr().slice(-4000));
      assert.equal(done.failed, 0);
      assert.equal(done.steps, 18);
      // Protobuf both ways: every request body and every answer.
      const wire = done.wire as { requests: Record<string, number>; responses: Record<string, number> };
      assert.deepEqual(Object.keys(wire.responses), ['application/vnd.kubernetes.protobuf']);
      assert.ok(Object.keys(wire.requests).every((k) => k.endsWith('application/vnd.kubernetes.protobuf')), JSON.stringify(wire));
    });

    for (const [label, binary, command] of [
      ['typed informer (protobuf)', () => typed, ['informer']],
      ['dynamic SharedIndexInformer (JSON)', () => reflector, []],
    ] as const) {
      void it(`${label} mirrors a namespace exactly through churn`, async () => {
        const ns = `suite-client-go-${command.length > 0 ? 'typed-informer' : 'reflector'}`;
        await ensureNamespace(client, ns);
        const seeded = await seedConfigMaps([client], ns, 'seed', 100);
        // A server that issues service account tokens has published kube-root-ca.crt here by now.
        const rootCa = (await client.request('GET', `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).status === 200 ? 1 : 0;
        const p = start(binary(), [...command, '--kubeconfig', target().kubeconfig, '--namespace', ns]);
        assert.equal((await p.next('synced', 60_000)).count, 100 + rootCa);
        const churn = await churnConfigMaps({ clients: [client], namespace: ns, existing: seeded, prefix: 'churn', writers: 3, durationMs: 3_000, pauseMs: 2 });
        assert.deepEqual(churn.errors, []);
        p.send('check');
        const result = await p.next('result', 60_000);
        assert.deepEqual(result.diff, [], p.stderr().slice(-4000));
        assert.equal(result.match, true);
        if (result.violations !== undefined) assert.deepEqual(result.violations, []);
      });
    }
  });
}
