export { startEtcd, type StartEtcdOptions, type TestEtcd, type TestEtcdTls } from './start-etcd.js';
export { uniquePrefix } from './unique-prefix.js';
export { freePort, freshPort } from './free-port.js';
export {
  runStorageConformance,
  conformanceCases,
  etcdRawStore,
  type ConformanceSetup,
  type ConformanceOptions,
  type ConformanceCase,
  type ConformanceContext,
  type RawStore,
} from '../conformance/index.js';
export {
  startEtcdCluster,
  type StartEtcdClusterOptions,
  type TestEtcdCluster,
  type EtcdClusterMember,
  type EtcdMemberStatus,
} from './etcd-cluster.js';
export { openPeerGates, type PeerGates, type PeerGateSpec } from './peer-gate.js';
