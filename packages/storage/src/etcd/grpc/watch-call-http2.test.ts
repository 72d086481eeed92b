// The Watch call suite again, with the watches over node:http2 (KAPI_ETCD_WATCH_TRANSPORT=http2).
process.env.KAPI_ETCD_WATCH_TRANSPORT = 'http2';
await import('./watch-call.test.js');
