/** `/version`: kube's version.Info, reporting a Kubernetes 1.32 compatible server. */

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

export const KUBE_MAJOR = '1';
export const KUBE_MINOR = '32';
export const GIT_VERSION = 'v1.32.0-kapi';

const BUILD_DATE = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export function versionInfo(): VersionInfo {
  return {
    major: KUBE_MAJOR,
    minor: KUBE_MINOR,
    gitVersion: GIT_VERSION,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: BUILD_DATE,
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}

/** Go's `%#v` of version.Info, as `kube-apiserver --version=raw` prints it. */
export function formatVersionInfoGo(info: VersionInfo): string {
  const q = (value: string) => JSON.stringify(value);
  return `version.Info{Major:${q(info.major)}, Minor:${q(info.minor)}, GitVersion:${q(info.gitVersion)}, GitCommit:${q(info.gitCommit)}, GitTreeState:${q(info.gitTreeState)}, BuildDate:${q(info.buildDate)}, GoVersion:${q(info.goVersion)}, Compiler:${q(info.compiler)}, Platform:${q(info.platform)}}`;
}
