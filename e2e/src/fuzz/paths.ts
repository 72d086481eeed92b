/**
 * Request paths beyond the resource paths: unknown groups, versions, resources and
 * subresources, percent-encoded and `..` segments, doubled and trailing slashes, very long
 * paths, and the server's own endpoints (discovery, OpenAPI, health, metrics, version).
 */
import fc from 'fast-check';
import { text } from './values.js';

const segment = fc.oneof(
  { arbitrary: fc.constantFrom('api', 'apis', 'v1', 'v2', 'namespaces', 'fz-ns-0', 'configmaps', 'widgets', 'status', 'scale', 'finalize', 'watch', 'proxy', 'log', 'exec', 'eviction', 'binding', 'fuzz.example.com', 'events.k8s.io', 'coordination.k8s.io'), weight: 6 },
  { arbitrary: fc.constantFrom('..', '.', '', '%2e%2e', '%2F', '%00', '%zz', '%', '%C3%A9', '%ED%A0%80', '%FF', 'a%2Fb', '~', '*', "'", 'CONFIGMAPS', 't1.', 'x'.repeat(300)), weight: 3 },
  { arbitrary: text.map((t) => encodeURIComponent(t)), weight: 1 },
);

/** Paths that are not a resource path the fuzzer builds from its table. */
export const oddPath = fc.oneof(
  { arbitrary: fc.array(segment, { minLength: 1, maxLength: 8 }).map((s) => `/${s.join('/')}`), weight: 6 },
  {
    arbitrary: fc.constantFrom(
      '/',
      '/api',
      '/apis',
      '/api/v1',
      '/apis/fuzz.example.com',
      '/apis/fuzz.example.com/v1',
      '/apis/fuzz.example.com/v2/namespaces/fuzz-a/widgets',
      '/apis/nope.example.com/v1/things',
      '/apis/apps/v1/namespaces/fuzz-a/deployments',
      '/api/v1/namespaces/fuzz-a/pods/t1/log',
      '/api/v1/namespaces/fuzz-a/configmaps/t1/status',
      '/api/v1/namespaces/fuzz-a/configmaps/t1/bogus',
      '/api/v1/namespaces/fuzz-a/configmaps/t1/status/extra',
      '/api/v1/namespaces/fuzz-a/configmaps/../secrets',
      '/api/v1/namespaces/fuzz-a/configmaps/..',
      '/api/v1/namespaces//configmaps',
      '/api/v1/namespaces/fuzz-a/configmaps/',
      '//api/v1/namespaces',
      '/api/v1/watch/namespaces/fuzz-a/configmaps/t1',
      '/api/v1/watch/configmaps',
      '/api/v1/configmaps',
      '/apis/fuzz.example.com/v1/widgets',
      '/api/v1/namespaces/fuzz-a/widgets',
      '/openapi/v2',
      '/openapi/v3',
      '/openapi/v3/api/v1',
      '/openapi/v3/apis/fuzz.example.com/v1?hash=bogus',
      '/openapi/v3/apis/nope/v1',
      '/version',
      '/version/',
      '/healthz',
      '/livez?verbose',
      '/readyz/etcd',
      '/readyz/bogus',
      '/livez?exclude=etcd&exclude=bogus',
      '/metrics',
      '/metrics/bogus',
      '/.well-known/openid-configuration',
      '/debug/pprof/',
    ),
    weight: 4,
  },
);
