// The unary client's suite again, with its calls over the frames transport (h2-connection.ts).
process.env.KAPI_ETCD_UNARY_TRANSPORT = 'frames';
await import('./unary-client.test.js');
