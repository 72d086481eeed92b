/**
 * @kapi/apiserver/testing: start the built `kapi-apiserver` as a child process on free ports
 * and write kubeconfigs for it — for the e2e suites and kapi-bench, which talk to the server
 * only over HTTP. Nothing here loads the server's own modules.
 */
export {
  startKapiServer,
  insecureGet,
  defaultApiserverBinary,
  generatedCertFileName,
  type KapiServer,
  type StartKapiServerOptions,
} from './kapi-server.js';
export { kubeconfigYaml, writeKubeconfig, type KubeconfigOptions } from './kubeconfig.js';
