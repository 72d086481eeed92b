export {
  startKapiServer,
  insecureGet,
  defaultApiserverBinary,
  generatedCertFileName,
  type KapiServer,
  type StartKapiServerOptions,
} from './harness/kapi-server.js';
export { kubeconfigYaml, writeKubeconfig, type KubeconfigOptions } from './harness/kubeconfig.js';
export { Kubectl, kubectlBinary, type KubectlOptions, type KubectlResult } from './harness/kubectl.js';
export { writeJsonFile, writeYamlFile, configMap } from './harness/fixtures.js';
export { startCluster, type StartClusterOptions, type TestCluster } from './harness/cluster.js';
export { startKubectl, type KubectlProcess } from './harness/kubectl.js';
export { RestClient, ensureNamespace, forEachConcurrently, type RestResponse, type KubeObject, type KubeList, type ObjectMeta } from './harness/rest.js';
export { openWatch, type WatchEvent, type WatchEnd, type WatchStream } from './harness/watch-stream.js';
export { startTcpProxy, backendOf, type TcpProxy, type TcpBackend } from './harness/tcp-proxy.js';
export { seedConfigMaps, churnConfigMaps, type AcknowledgedWrite, type ChurnOptions, type ChurnResult } from './harness/churn.js';
export { buildGoCommand, LineProcess, goModuleDir, e2eCacheDir } from './harness/go-program.js';
export { etcdHistory, compactEtcd } from './harness/etcd-history.js';
