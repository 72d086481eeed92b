/**
 * core/v1 RangeAllocation, which kube-apiserver stores but does not serve: kapi writes the
 * bytes kube-apiserver 1.32 wrote for its service IP bitmap (recorded from the reference
 * server: etcd's value of /registry/ranges/serviceips after one Service), and reads them back.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEnvelope } from './envelope.js';
import { decodeEnveloped, encodeObjectGo } from './object-codec.js';

const KUBE_SERVICE_IPS =
  '6b3873000a150a027631120f52616e6765416c6c6f636174696f6e12370a100a0012001a0022002a00320038004200120b31302e302e302e302f32341a16080000000000000000000000000000000000000000011a002200';
const DATA = Buffer.from('080000000000000000000000000000000000000000' + '01', 'hex').toString('base64');

void describe('RangeAllocation as kube-apiserver stores it', () => {
  void it("encodes to kube's bytes, with the zero ObjectMeta Go writes", () => {
    const bytes = encodeObjectGo({ apiVersion: 'v1', kind: 'RangeAllocation', metadata: { creationTimestamp: null }, range: '10.0.0.0/24', data: DATA });
    assert.equal(bytes.toString('hex'), KUBE_SERVICE_IPS);
  });

  void it("decodes kube's bytes to its range and bitmap", () => {
    const bytes = Buffer.from(KUBE_SERVICE_IPS, 'hex');
    const envelope = decodeEnvelope(bytes);
    const { object } = decodeEnveloped(envelope, envelope);
    assert.deepEqual(object, { apiVersion: 'v1', kind: 'RangeAllocation', metadata: { creationTimestamp: null }, range: '10.0.0.0/24', data: DATA });
  });
});
