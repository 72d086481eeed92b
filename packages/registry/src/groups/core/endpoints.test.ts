import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import type { Registry } from '../../registry.js';
import { inNamespace, rejectsWithStatus, resource, startFixture, type Fixture } from '../../testing/registry-fixture.js';

const ns = inNamespace('default');
const endpoints = (name: string, ip: string): KubeObject => ({
  apiVersion: 'v1', kind: 'Endpoints', metadata: { name }, subsets: [{ addresses: [{ ip }], notReadyAddresses: [{ ip }], ports: [{ port: 80 }] }],
});

/** kube-apiserver v1.32.13's message for one address (the same comes for notReadyAddresses). */
const KUBE: readonly (readonly [string, string])[] = [
  ['127.0.0.1', 'may not be in the loopback range (127.0.0.0/8, ::1/128)'],
  ['127.1.2.3', 'may not be in the loopback range (127.0.0.0/8, ::1/128)'],
  ['::1', 'may not be in the loopback range (127.0.0.0/8, ::1/128)'],
  ['::ffff:127.0.0.1', 'may not be in the loopback range (127.0.0.0/8, ::1/128)'],
  ['169.254.1.1', 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
  ['fe80::1', 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
  ['224.0.0.5', 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'],
  ['ff02::1', 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'],
  ['ff12::1', 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'],
  ['0.0.0.0', 'may not be unspecified (0.0.0.0)'],
  ['::', 'may not be unspecified (::)'],
  ['::ffff:0.0.0.0', 'may not be unspecified (::ffff:0.0.0.0)'],
];

void describe('endpoints', () => {
  let fx: Fixture;
  let registry: Registry;
  const store = () => resource(registry, 'endpoints');

  before(async () => {
    fx = await startFixture();
    registry = await fx.newRegistry();
  });
  after(async () => fx.close());

  void it('refuses loopback, link-local, link-local multicast and unspecified addresses with kube\'s 422', async () => {
    for (const [ip, detail] of KUBE) {
      const e = (list: string) => `subsets[0].${list}[0].ip: Invalid value: ${JSON.stringify(ip)}: ${detail}`;
      await rejectsWithStatus(store().creater.create(ns, endpoints('e1', ip), {}), {
        code: 422, reason: 'Invalid', message: `Endpoints "e1" is invalid: [${e('addresses')}, ${e('notReadyAddresses')}]`,
      });
    }
  });

  void it('refuses what is not an address with both of kube\'s errors, and on update too', async () => {
    const e = (list: string, ip: string) => `subsets[0].${list}[0].ip: Invalid value: "${ip}": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff), subsets[0].${list}[0].ip: Invalid value: "${ip}": must be a valid IP address`;
    for (const ip of ['1.2.3', '1.2.3.4.5', 'fe80::1%eth0', '']) {
      await rejectsWithStatus(store().creater.create(ns, endpoints('e1', ip), {}), { code: 422, message: `Endpoints "e1" is invalid: [${e('addresses', ip)}, ${e('notReadyAddresses', ip)}]` });
    }
    const created = await store().creater.create(ns, endpoints('ok', '10.0.0.1'), {});
    assert.equal(created.metadata.name, 'ok');
    // Go's sloppy parser takes leading zeros; private, global and other multicast addresses are fine.
    for (const ip of ['010.1.1.1', 'fd00::1', '2001:db8::1', '224.0.1.1']) await store().creater.create(ns, endpoints(`ok-${ip.replace(/[.:]/g, '-')}`, ip), {});
    const update = { ...created, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: 80 }] }] };
    await rejectsWithStatus(store().updater.update(ns, 'ok', update, {}), {
      code: 422, message: 'Endpoints "ok" is invalid: subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    });
  });
});
