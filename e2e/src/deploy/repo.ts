/**
 * Paths of the repository's deployment files and typed access to deploy/topology.mjs and
 * deploy/compose.mjs (plain JavaScript outside the TypeScript build, loaded at run time).
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';

/** The repository root (this file is e2e/dist/deploy/repo.js once built). */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
export const deployDir = join(repoRoot, 'deploy');
export const chartDir = join(repoRoot, 'helm', 'kapi');
export const rendererDir = join(repoRoot, 'helm', 'render');

export interface Command {
  name: string;
  program: 'etcd' | 'kapi-apiserver' | 'kapi-lb' | 'kapi-peer-gate';
  args: string[];
}
export interface Layout {
  kind: 'local' | 'compose';
  certDir: string;
  lbListen: string;
}
export interface LocalPorts {
  lb: number;
  gateControl: number;
  kapi: Record<string, number>;
  etcdClient: Record<string, number>;
  etcdPeer: Record<string, number>;
  etcdGate: Record<string, number>;
}
export interface Topology {
  etcdMembers: readonly string[];
  kapiReplicas: readonly string[];
  balancer: string;
  peerGate: string;
  readinessPath: string;
  serviceAccountIssuer: string;
  addressFlags: { etcd: string[]; kapi: string[]; lb: string[] };
  localPortCount: number;
  etcdCommand(member: string, layout: Layout): Command;
  kapiCommand(replica: string, layout: Layout): Command;
  lbCommand(layout: Layout): Command;
  clusterCommands(layout: Layout): Command[];
  localLayout(options: { dir: string; basePort: number }): Layout & { ports: LocalPorts; dir: string };
  composeLayout(): Layout;
  flagPairs(args: readonly string[]): [string, string][];
}
export interface ComposeModule {
  etcdImage: string;
  kapiImage: string;
  composeDocument(): Record<string, unknown>;
}

export async function loadTopology(): Promise<Topology> {
  return (await import(pathToFileURL(join(deployDir, 'topology.mjs')).href)) as Topology;
}

export async function loadCompose(): Promise<ComposeModule> {
  return (await import(pathToFileURL(join(deployDir, 'compose.mjs')).href)) as ComposeModule;
}

/** The flag names of `--flag=value` arguments, in order. */
export function flagNames(args: readonly string[]): string[] {
  return args.map((a) => (a.includes('=') ? a.slice(0, a.indexOf('=')) : a));
}
