/**
 * @kapi/apiserver/testing: start the built `kapi-apiserver` as a child process on free ports
 * and write kubeconfigs for it — for the e2e suites and kapi-bench, which talk to the server
 * only over HTTP — and the minimal object of every served resource. Nothing exported here
 * loads the server's own modules (the in-process fixture, `fixture.ts`, is for this package's
 * own tests).
 */
export {
  startKapiServer,
  insecureGet,
  defaultApiserverBinary,
  bundledApiserverBinary,
  generatedCertFileName,
  type KapiServer,
  type StartKapiServerOptions,
} from './kapi-server.js';
export { kubeconfigYaml, writeKubeconfig, type KubeconfigOptions } from './kubeconfig.js';
export { MINIMAL_OBJECTS, type MinimalObject } from './minimal-objects.js';
export { writeServiceAccountKeys, type ServiceAccountKeyFiles } from './service-account-keys.js';
export { createTestCa, type Pem, type TestCa } from './client-certs.js';
export { Component, type ComponentSpec } from './component.js';
export { kwokNode, kwokNodeAnnotation, kwokStagesFile } from './kwok.js';
export {
  CONTROL_PLANE_CLIENT_QPS, CONTROL_PLANE_LEADER_ELECTION, clientCertKubeconfig, kubeControllerManagerArgs, kubeSchedulerArgs, kwokArgs, type ComponentServing,
} from './control-plane.js';
