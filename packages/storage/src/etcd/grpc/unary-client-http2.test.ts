// The unary client's suite again, with its calls over node:http2 (KAPI_ETCD_UNARY_TRANSPORT=http2).
process.env.KAPI_ETCD_UNARY_TRANSPORT = 'http2';
await import('./unary-client.test.js');
