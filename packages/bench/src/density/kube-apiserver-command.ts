/**
 * The API server under test in the density scenario, as a command line: the built
 * `kapi-apiserver` or the real kube-apiserver v1.32.13 (the baseline), each with the same
 * listeners, etcd, client CA, service-account keys, service network and authorization
 * (Node,RBAC), so the only difference between the two runs is the server.
 *
 * (kapi-bench's side-by-side scenarios, on another branch, have a kube-apiserver starter of
 * their own; this one is the density scenario's until the two are folded together.)
 */
import { join } from 'node:path';
import { defaultApiserverBinary } from '@kapi/apiserver/testing';

export type DensityServerKind = 'kapi' | 'kube-apiserver';

export interface ServerCommandOptions {
  readonly kind: DensityServerKind;
  /** Where kube-apiserver (and the other Go binaries) are: build-binaries.sh's cache. */
  readonly binDir: string;
  readonly etcdServers: readonly string[];
  readonly port: number;
  readonly certDir: string;
  readonly clientCaFile: string;
  readonly serviceAccountKeyFile: string;
  readonly serviceAccountSigningKeyFile: string;
}

/** The flags both servers get. */
function commonFlags(o: ServerCommandOptions): string[] {
  return [
    `--etcd-servers=${o.etcdServers.join(',')}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${o.port}`,
    `--cert-dir=${o.certDir}`,
    `--client-ca-file=${o.clientCaFile}`,
    '--authorization-mode=Node,RBAC',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${o.serviceAccountKeyFile}`,
    `--service-account-signing-key-file=${o.serviceAccountSigningKeyFile}`,
    '--service-cluster-ip-range=10.96.0.0/16',
  ];
}

/**
 * kapi's own kube-controller-manager controllers are switched off: the real
 * kube-controller-manager runs them (README § Running with kube-controller-manager).
 */
const KAPI_ONLY_FLAGS = [
  '--controllers=-namespace-controller,-garbage-collector-controller,-serviceaccount-controller,-serviceaccount-token-controller,-root-ca-certificate-publisher-controller,-clusterrole-aggregation-controller,-validatingadmissionpolicy-status-controller,-persistentvolumeclaim-protection-controller,-persistentvolume-protection-controller,-resourcequota-controller',
];

/** `{ command, args }` that start the server `o.kind` in the foreground. */
export function serverCommand(o: ServerCommandOptions): { command: string; args: string[] } {
  if (o.kind === 'kapi') {
    return { command: process.execPath, args: [process.env.KAPI_APISERVER_BIN ?? defaultApiserverBinary, ...commonFlags(o), ...KAPI_ONLY_FLAGS] };
  }
  return { command: join(o.binDir, 'kube-apiserver'), args: commonFlags(o) };
}
