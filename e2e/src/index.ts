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
