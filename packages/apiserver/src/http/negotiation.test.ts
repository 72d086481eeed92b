import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '@kapi/machinery';
import { negotiateInput, negotiateResourceMedia, parseAccept, streamMediaTypes, type NegotiatedMedia } from './negotiation.js';

const builtin = { protobuf: true };
const custom = { protobuf: false };
const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

function status(fn: () => unknown): { code: number; message: string } {
  try {
    fn();
  } catch (err) {
    if (isStatusError(err)) return { code: err.code, message: err.status.message ?? '' };
    throw err;
  }
  throw new Error('expected a StatusError');
}

void describe('Accept negotiation for resources', () => {
  const cases: [string | undefined, NegotiatedMedia][] = [
    [undefined, { encoding: 'json' }],
    ['', { encoding: 'json' }],
    ['*/*', { encoding: 'json' }],
    ['application/*', { encoding: 'json' }],
    ['application/json', { encoding: 'json' }],
    ['application/json; charset=utf-8', { encoding: 'json' }],
    ['application/yaml', { encoding: 'yaml' }],
    ['application/vnd.kubernetes.protobuf', { encoding: 'protobuf' }],
    // client-go's typed clients and informers
    ['application/vnd.kubernetes.protobuf,application/json', { encoding: 'protobuf' }],
    ['application/vnd.kubernetes.protobuf;stream=watch, application/json', { encoding: 'protobuf' }],
    // q-values order the clauses; ties keep concrete types before wildcards
    ['application/vnd.kubernetes.protobuf;q=0.5,application/json', { encoding: 'json' }],
    ['*/*;q=0.8,application/yaml', { encoding: 'yaml' }],
    ['*/*,application/yaml', { encoding: 'yaml' }],
    ['application/json;q=0,application/yaml;q=0.1', { encoding: 'yaml' }],
    ['text/html,application/xhtml+xml,*/*;q=0.8', { encoding: 'json' }],
    // kubectl get
    [TABLE_ACCEPT, { encoding: 'json', target: { kind: 'Table', version: 'v1' } }],
    ['application/json;as=Table;v=v1beta1;g=meta.k8s.io', { encoding: 'json', target: { kind: 'Table', version: 'v1beta1' } }],
    ['application/yaml;as=Table;v=v1;g=meta.k8s.io', { encoding: 'yaml', target: { kind: 'Table', version: 'v1' } }],
    // Table has no protobuf form: the next clause wins
    ['application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json', { encoding: 'json' }],
    // unknown conversions and groups are skipped
    ['application/json;as=Table;v=v2;g=meta.k8s.io,application/json', { encoding: 'json' }],
    ['application/json;as=Other;v=v1;g=meta.k8s.io,application/yaml', { encoding: 'yaml' }],
    ['application/json;as=Table;v=v1;g=apps,application/yaml', { encoding: 'yaml' }],
    // metadata informers
    [
      'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
      { encoding: 'protobuf', target: { kind: 'PartialObjectMetadataList', version: 'v1' } },
    ],
    // stream=watch only on serializers that stream, unknown parameters ignored
    ['application/yaml;stream=watch,application/json', { encoding: 'json' }],
    ['application/json;stream=other,application/yaml', { encoding: 'yaml' }],
    ['application/json;stream=watch', { encoding: 'json' }],
    ['application/json;pretty=1;foo=bar', { encoding: 'json' }],
  ];
  for (const [accept, expected] of cases) {
    void it(`${accept ?? '(none)'}`, () => assert.deepEqual(negotiateResourceMedia(accept, builtin), expected));
  }

  void it('406 with kube\'s message and the supported list when nothing fits', () => {
    assert.deepEqual(status(() => negotiateResourceMedia('text/html', builtin)), {
      code: 406,
      message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    });
    assert.deepEqual(status(() => negotiateResourceMedia('application/vnd.kubernetes.protobuf', custom)), {
      code: 406,
      message: 'only the following media types are accepted: application/json, application/yaml',
    });
    assert.equal(status(() => negotiateResourceMedia('application/json;q=0', builtin)).code, 406);
  });

  void it('406 from go-restful (its own text) when a go-restful route produces none of the Accept types', () => {
    const route = { protobuf: true, goRestful: true };
    assert.deepEqual(status(() => negotiateResourceMedia('text/html, application/foo', route)), {
      code: 406,
      message: '406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    });
    // A produced type with parameters kube cannot serve passes go-restful: kube's own text.
    assert.equal(status(() => negotiateResourceMedia('application/json;as=Nope', route)).message.startsWith('only the following media types are accepted'), true);
  });

  void it('watch media types list the stream forms', () => {
    assert.deepEqual(streamMediaTypes(builtin), ['application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch']);
    assert.deepEqual(streamMediaTypes(custom), ['application/json;stream=watch']);
  });

  void it('parseAccept sorts by q, then concreteness, then order', () => {
    assert.deepEqual(
      parseAccept('*/*;q=0.9, application/*, application/json;q=0.9, text/plain').map((r) => `${r.type}/${r.subtype}`),
      ['text/plain', 'application/*', 'application/json', '*/*'],
    );
  });
});

void describe('Content-Type negotiation for request bodies', () => {
  void it('accepts JSON (default), YAML and protobuf with parameters', () => {
    assert.equal(negotiateInput(undefined, builtin), 'json');
    assert.equal(negotiateInput('', builtin), 'json');
    assert.equal(negotiateInput('application/json; charset=utf-8', builtin), 'json');
    assert.equal(negotiateInput('Application/YAML', builtin), 'yaml');
    assert.equal(negotiateInput('application/vnd.kubernetes.protobuf', builtin), 'protobuf');
  });

  void it('415 lists the accepted types (protobuf only where the resource has messages)', () => {
    const prefix = 'the body of the request was in an unknown format - accepted media types include: ';
    assert.deepEqual(status(() => negotiateInput('text/plain', builtin)), { code: 415, message: `${prefix}application/json, application/yaml, application/vnd.kubernetes.protobuf` });
    assert.deepEqual(status(() => negotiateInput('application/vnd.kubernetes.protobuf', custom)), { code: 415, message: `${prefix}application/json, application/yaml` });
  });
});
