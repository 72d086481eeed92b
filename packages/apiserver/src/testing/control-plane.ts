/**
 * The command lines of kube's own components on a control plane over kapi (or kube-apiserver),
 * shared by the e2e control plane and kapi-bench's density scenario: kwok, kube-controller-manager
 * and kube-scheduler as a client-certificate user each.
 */
import { writeFileSync } from 'node:fs';
import type { Pem } from './client-certs.js';
import { kwokNodeAnnotation, kwokStagesFile } from './kwok.js';

/**
 * Leader election of kube-controller-manager and kube-scheduler, longer than their 15 s/10 s/2 s
 * defaults: on a loaded 2-core machine a 5 s lease renewal can time out, and a component that
 * loses its lease exits.
 */
export const CONTROL_PLANE_LEADER_ELECTION: readonly string[] = ['--leader-elect-lease-duration=60s', '--leader-elect-renew-deadline=40s', '--leader-elect-retry-period=4s'];

/** Client QPS of kube-controller-manager and kube-scheduler. */
export const CONTROL_PLANE_CLIENT_QPS: readonly string[] = ['--kube-api-qps=100', '--kube-api-burst=200'];

/** Writes a kubeconfig for `server` (TLS not verified) with `user`'s client certificate; returns `path`. */
export function clientCertKubeconfig(path: string, server: string, user: Pem): string {
  writeFileSync(path, JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kapi', cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'u', user: { 'client-certificate': user.certFile, 'client-key': user.keyFile } }],
    contexts: [{ name: 'kapi', context: { cluster: 'kapi', user: 'u' } }],
    'current-context': 'kapi',
  }), { mode: 0o600 });
  return path;
}

/** kwok managing the nodes that carry kwok's annotation, with the shared stages. */
export function kwokArgs(o: { kubeconfig: string; serverPort: number }): string[] {
  return [
    `--kubeconfig=${o.kubeconfig}`,
    `--config=${kwokStagesFile}`,
    `--manage-nodes-with-annotation-selector=${kwokNodeAnnotation}=fake`,
    '--cidr=10.244.0.0/16',
    '--node-ip=10.0.0.1',
    '--node-lease-duration-seconds=40',
    `--server-address=127.0.0.1:${o.serverPort}`,
  ];
}

/** Where a component serves its own HTTPS (health) and how much it logs. */
export interface ComponentServing {
  readonly kubeconfig: string;
  readonly securePort: number;
  readonly certDir: string;
  readonly verbosity: number;
}

/** The args both of kube's components share: the kubeconfig for all three roles, loopback serving, leader election, QPS. */
function componentArgs(o: ComponentServing): string[] {
  return [
    `--kubeconfig=${o.kubeconfig}`,
    `--authentication-kubeconfig=${o.kubeconfig}`,
    `--authorization-kubeconfig=${o.kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${o.securePort}`,
    `--cert-dir=${o.certDir}`,
    '--leader-elect=true',
    ...CONTROL_PLANE_LEADER_ELECTION,
  ];
}

/** kube-controller-manager with per-controller service account credentials, signing with the cluster CA. */
export function kubeControllerManagerArgs(o: ComponentServing & { serviceAccountSigningKeyFile: string; caCertFile: string; caKeyFile: string }): string[] {
  return [
    ...componentArgs(o),
    '--use-service-account-credentials=true',
    `--service-account-private-key-file=${o.serviceAccountSigningKeyFile}`,
    `--root-ca-file=${o.caCertFile}`,
    `--cluster-signing-cert-file=${o.caCertFile}`,
    `--cluster-signing-key-file=${o.caKeyFile}`,
    '--service-cluster-ip-range=10.96.0.0/16',
    ...CONTROL_PLANE_CLIENT_QPS,
    `--v=${o.verbosity}`,
  ];
}

/** kube-scheduler. */
export function kubeSchedulerArgs(o: ComponentServing): string[] {
  return [...componentArgs(o), ...CONTROL_PLANE_CLIENT_QPS, `--v=${o.verbosity}`];
}
