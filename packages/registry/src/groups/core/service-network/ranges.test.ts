import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AllocationBitmap } from './bitmap.js';
import { canonicalIP, nodePortRange, serviceIPRange } from './ranges.js';

void describe('service ranges and bitmaps', () => {
  void it('a /24 hands out .1-.254, dynamic picks from offset 16 (10.0.0.17) up', () => {
    const r = serviceIPRange('10.0.0.0/24');
    assert.equal(r.spec, '10.0.0.0/24');
    assert.equal(r.size, 254);
    assert.equal(r.offset, 16);
    assert.equal(r.firstIP, '10.0.0.1');
    assert.equal(r.offsetOf('10.0.0.1'), 0);
    assert.equal(r.offsetOf('10.0.0.254'), 253);
    assert.equal(r.offsetOf('10.0.0.255'), undefined, 'broadcast');
    assert.equal(r.offsetOf('10.0.0.0'), undefined, 'network');
    assert.equal(r.offsetOf('10.0.1.1'), undefined);
    assert.equal(r.valueAt(16), '10.0.0.17');
    assert.equal(serviceIPRange('10.96.0.0/12').offset, 256);
    assert.equal(serviceIPRange('10.1.2.3/16').spec, '10.1.0.0/16');
  });

  void it('IPv6 ranges are capped at 65536 and print canonically', () => {
    const r = serviceIPRange('fd00:0:0:0::/108');
    assert.equal(r.spec, 'fd00::/108');
    assert.equal(r.size, 65535);
    assert.equal(r.family, 'IPv6');
    assert.equal(r.firstIP, 'fd00::1');
    assert.equal(r.offsetOf('fd00:0::0:2'), 1);
    assert.equal(canonicalIP('2001:DB8:0:0:1:0:0:1'), '2001:db8::1:0:0:1');
    assert.equal(canonicalIP('::ffff:10.0.0.1'), '::ffff:a00:1');
    assert.equal(canonicalIP('not-an-ip'), undefined);
    assert.throws(() => serviceIPRange('10.0.0.0'), /invalid CIDR address/);
  });

  void it('node ports: 30000-32767 has 2768 ports, dynamic picks from offset 86', () => {
    const r = nodePortRange('30000-32767');
    assert.equal(r.size, 2768);
    assert.equal(r.offset, 86);
    assert.equal(r.offsetOf(30000), 0);
    assert.equal(r.offsetOf(32768), undefined);
    assert.equal(r.notInRange(80), 'provided port is not in the valid range. The range of valid ports is 30000-32767');
    assert.equal(nodePortRange('100-110').offset, 0);
  });

  void it('bitmaps encode as kube\'s big-endian big.Int bytes', () => {
    const b = new AllocationBitmap(254, 16);
    assert.equal(b.toData(), '');
    b.set(0);
    assert.equal(b.toData(), 'AQ==');
    b.set(9);
    assert.equal(Buffer.from(b.toData(), 'base64').toString('hex'), '0201');
    const back = AllocationBitmap.fromData(254, 16, b.toData());
    assert.deepEqual(back.offsets(), [0, 9]);
    assert.equal(back.count, 2);
  });

  void it('takeNext fills the upper band before the lower one, then reports full', () => {
    const b = new AllocationBitmap(20, 16);
    const taken = Array.from({ length: 4 }, () => b.takeNext()!);
    assert.deepEqual([...taken].sort((x, y) => x - y), [16, 17, 18, 19]);
    for (let i = 0; i < 16; i++) assert.notEqual(b.takeNext(), undefined);
    assert.equal(b.takeNext(), undefined);
  });
});
