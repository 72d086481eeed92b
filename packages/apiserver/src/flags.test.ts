import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FlagError, anonymousAllowed, parseFlags, usage, type ServerFlags } from './flags.js';
import { formatGoDuration, parseGoDuration } from './duration.js';
import { watchTimeoutMs } from './handlers/watch.js';
import { BUILT_PLUGINS } from './admission/plugins.js';

function parsed(argv: string[]): ServerFlags {
  const flags = parseFlags(argv);
  assert.notEqual(flags, 'help');
  return flags as ServerFlags;
}

function flagError(argv: string[]): string {
  try {
    parseFlags(argv);
  } catch (err) {
    assert.ok(err instanceof FlagError, `expected FlagError, got ${String(err)}`);
    return err.message;
  }
  assert.fail('expected a FlagError');
}

void describe('parseFlags', () => {
  void it('applies kube-apiserver defaults', () => {
    const f = parsed(['--etcd-servers=http://127.0.0.1:2379']);
    assert.deepEqual(f.etcdServers, ['http://127.0.0.1:2379']);
    assert.equal(f.etcdPrefix, '/registry');
    assert.equal(f.securePort, 6443);
    assert.equal(f.bindAddress, '0.0.0.0');
    assert.equal(f.certDir, '/var/run/kubernetes');
    assert.equal(f.insecurePort, 0);
    assert.equal(f.insecureBindAddress, '127.0.0.1');
    assert.equal(f.minRequestTimeoutSeconds, 1800);
    assert.equal(f.requestTimeoutMs, 60_000);
    assert.equal(f.maxRequestsInflight, 400);
    assert.equal(f.maxMutatingRequestsInflight, 200);
    assert.equal(f.maxConnections, 20_000);
    assert.equal(f.watchCache, true);
    assert.equal(f.etcdCompactionIntervalMs, 300_000);
    assert.equal(f.verbosity, 0);
  });

  void it('accepts --flag=value and --flag value, comma lists and repeated lists', () => {
    const f = parsed([
      '--etcd-servers', 'http://a:2379,http://b:2379', '--etcd-servers=http://c:2379',
      '--secure-port', '7443', '--bind-address=127.0.0.1', '--request-timeout=30s', '--watch-cache=false',
      '--runtime-config', 'api/all=true,batch/v1=false', '-v', '4', '--insecure-port=8080',
    ]);
    assert.deepEqual(f.etcdServers, ['http://a:2379', 'http://b:2379', 'http://c:2379']);
    assert.equal(f.securePort, 7443);
    assert.equal(f.bindAddress, '127.0.0.1');
    assert.equal(f.requestTimeoutMs, 30_000);
    assert.equal(f.watchCache, false);
    assert.deepEqual(f.runtimeConfig, { 'api/all': 'true', 'batch/v1': 'false' });
    assert.equal(f.verbosity, 4);
    assert.equal(f.insecurePort, 8080);
    assert.equal(parsed(['--etcd-servers=x', '--v=2']).verbosity, 2);
    assert.equal(parsed(['--etcd-servers=x', '-v=3']).verbosity, 3);
  });

  void it('answers --version and --version=raw as kube-apiserver does (kwokctl reads the version this way)', () => {
    assert.deepEqual(parseFlags(['--version']), { version: 'line' });
    assert.deepEqual(parseFlags(['--version=raw']), { version: 'raw' });
    assert.deepEqual(parseFlags(['--version=true', '--etcd-servers=x']), { version: 'line' });
    assert.equal(parsed(['--etcd-servers=x', '--version=false']).etcdServers.length, 1);
    assert.equal(flagError(['--version=maybe']), 'invalid argument "maybe" for "--version" flag: strconv.ParseBool: parsing "maybe": invalid syntax');
    assert.equal(flagError(['--version=v1.33.0']), '--version=<version> (setting the reported version) is not implemented by kapi');
  });

  void it('takes the kube flags kwokctl passes', () => {
    const f = parsed([
      '--etcd-servers=http://127.0.0.1:2379', '--allow-privileged=true', '--endpoint-reconciler-type=none', '--admission-control=',
      '--max-requests-inflight=0', '--max-mutating-requests-inflight=0', '--enable-priority-and-fairness=false',
      '--authorization-mode=RBAC', '--default-watch-cache-size=100', '--allow-privileged',
      '--etcd-healthcheck-timeout=2s', '--goaway-chance=.001',
    ]);
    assert.equal(f.maxRequestsInflight, 0);
    assert.equal(f.enablePriorityAndFairness, false);
    assert.equal(parsed(['--etcd-servers=x']).enablePriorityAndFairness, true);
  });

  void it('reads the kube flags that shape requests, and refuses what kube 1.32 no longer knows', () => {
    const defaults = parsed(['--etcd-servers=x']);
    assert.equal(defaults.allowPrivileged, false);
    assert.equal(defaults.externalHostname, '');
    assert.deepEqual(defaults.corsAllowedOrigins, []);
    assert.deepEqual(defaults.kubeletPreferredAddressTypes, ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP']);
    assert.equal(defaults.kubeletPort, 10250);
    assert.deepEqual(defaults.flagWarnings, []);
    const f = parsed([
      '--etcd-servers=x', '--allow-privileged', '--external-hostname=api.example.com', '--cors-allowed-origins=//a\\.example(:|$),^https://b\\.example$',
      '--kubelet-preferred-address-types=InternalIP,Hostname', '--storage-backend=etcd3', '--profiling=false', '--kubelet-client-certificate=/c', '--kubelet-client-key=/k',
    ]);
    assert.equal(f.allowPrivileged, true);
    assert.equal(f.externalHostname, 'api.example.com');
    assert.deepEqual(f.corsAllowedOrigins, ['//a\\.example(:|$)', '^https://b\\.example$']);
    assert.deepEqual(f.kubeletPreferredAddressTypes, ['InternalIP', 'Hostname']);
    // Removed from kube-apiserver (klog's flags went in 1.26): an unknown flag there too.
    for (const flag of ['--logtostderr', '--alsologtostderr', '--profiling-mode=x']) assert.equal(flagError(['--etcd-servers=x', flag]), `unknown flag: ${flag.split('=')[0]!}`);
  });

  void it('prints pflag\'s line for each deprecated flag given, as kube does', () => {
    // Recorded from kube-apiserver 1.32.13's stderr.
    assert.deepEqual(parsed(['--etcd-servers=x', '--kubelet-port=1', '--default-watch-cache-size=5', '--apiserver-count=2', '--admission-control=']).flagWarnings, [
      'Flag --kubelet-port has been deprecated, kubelet-port is deprecated and will be removed.',
      'Flag --default-watch-cache-size has been deprecated, watch caches are sized automatically and this flag will be removed in a future version',
      'Flag --apiserver-count has been deprecated, apiserver-count is deprecated and will be removed in a future version.',
      'Flag --admission-control has been deprecated, Use --enable-admission-plugins or --disable-admission-plugins instead. Will be removed in a future version.',
    ]);
    assert.equal(parsed(['--etcd-servers=x', '--kubelet-port=1']).kubeletPort, 1);
  });

  void it('checks the etcd and CORS options with kube\'s messages, and refuses what kapi does not build', () => {
    assert.equal(flagError(['--etcd-servers=x', '--storage-backend=etcd2']), "--storage-backend invalid, allowed values: etcd3. If not specified, it will default to 'etcd3'");
    const format = '--etcd-servers-overrides invalid, must be of format: group/resource#servers, where servers are URLs, semicolon separated';
    assert.equal(flagError(['--etcd-servers=x', '--etcd-servers-overrides=bad']), format);
    assert.equal(flagError(['--storage-backend=x', '--etcd-servers-overrides=a#b']), `[--etcd-servers must be specified, --storage-backend invalid, allowed values: etcd3. If not specified, it will default to 'etcd3', ${format}]`);
    assert.equal(flagError(['--etcd-servers=x', '--etcd-servers-overrides=/events#http://127.0.0.1:2379']), '--etcd-servers-overrides is not implemented by kapi');
    assert.equal(flagError(['--etcd-servers=x', '--max-connection-bytes-per-sec=100']), '--max-connection-bytes-per-sec is not implemented by kapi');
    assert.equal(parsed(['--etcd-servers=x', '--max-connection-bytes-per-sec=0']).etcdServers.length, 1);
    const help = "List of allowed origins for CORS, comma separated. An allowed origin can be a regular expression to support subdomain matching. If this list is empty CORS will not be enabled. Please ensure each expression matches the entire hostname by anchoring to the start with '^' or including the '//' prefix, and by anchoring to the end with '$' or including the ':' port separator suffix. Examples of valid expressions are '//example\\.com(:|$)' and '^https://example\\.com(:|$)'";
    assert.equal(flagError(['--etcd-servers=x', '--cors-allowed-origins=example\\.com']), `--cors-allowed-origins has an invalid regular expression: regular expression does not pin to start/end of host in the origin header, help: ${help}`);
    assert.deepEqual(parsed(['--etcd-servers=x', '--cors-allowed-origins=//a(:|$),^b$']).corsAllowedOrigins, ['//a(:|$)', '^b$']);
    assert.match(flagError(['--etcd-servers=x', '--cors-allowed-origins=^(a$']), /^--cors-allowed-origins has an invalid regular expression: error parsing regexp: /);
  });

  void it('parses --feature-gates and accepts --watch-cache-sizes', () => {
    const f = parsed(['--etcd-servers=x', '--feature-gates=ConsistentListFromCache=false,WatchList=true', '--watch-cache-sizes=pods#1000,nodes#0']);
    assert.deepEqual(f.featureGates, { ConsistentListFromCache: false, WatchList: true });
    assert.deepEqual(parsed(['--etcd-servers=x']).featureGates, {});
    assert.deepEqual(f.watchCacheSizes, ['pods#1000', 'nodes#0']);
    assert.equal(f.minRequestTimeoutSeconds, 1800);
    assert.equal(f.etcdCompactionIntervalMs, 300_000);
    assert.deepEqual(
      parsed(['--etcd-servers=x', '--feature-gates=AllowUnsafeMalformedObjectDeletion=true', '--feature-gates=ConsistentListFromCache=false']).featureGates,
      { AllowUnsafeMalformedObjectDeletion: true, ConsistentListFromCache: false },
    );
    assert.equal(parsed(['--etcd-servers=x', '--etcd-compaction-interval=0']).etcdCompactionIntervalMs, 0);
    // kube-apiserver 1.32 logs one warning per GA or deprecated gate set explicitly (recorded from v1.32.13), none for AllBeta's.
    assert.deepEqual(parsed(['--etcd-servers=x', '--feature-gates=APIListChunking=true,AllowDNSOnlyNodeCSR=false,ConsistentListFromCache=false']).featureGateWarnings, [
      'Setting GA feature gate APIListChunking=true. It will be removed in a future release.',
      'Setting deprecated feature gate AllowDNSOnlyNodeCSR=false. It will be removed in a future release.',
    ]);
    assert.deepEqual(f.featureGateWarnings, []);
    // kube-apiserver 1.32 checks the pairs after parsing the command line: its texts carry no `invalid argument` prefix.
    assert.equal(flagError(['--etcd-servers=x', '--feature-gates=A']), 'missing bool value for A');
    assert.equal(flagError(['--etcd-servers=x', '--feature-gates=A=maybe']), 'invalid value of A=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax');
  });

  void it('checks --feature-gates against kube 1.32\'s gate table with kube\'s texts (recorded from kube-apiserver v1.32.13)', () => {
    const gates = (...values: string[]) => ['--etcd-servers=x', ...values.map((v) => `--feature-gates=${v}`)];
    assert.equal(flagError(gates('Foo=true')), 'unrecognized feature gate: Foo');
    assert.equal(flagError(gates('kube:Foo=true')), 'unrecognized feature gate: Foo');
    assert.equal(flagError(gates('=true')), 'unrecognized feature gate: ');
    assert.equal(flagError(gates('wardle:Foo=true')), 'component not registered: wardle');
    assert.equal(flagError(gates('kube:WatchList=true,APIListChunking=true')), 'set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use');
    assert.equal(flagError(gates('Foo=true=x')), 'invalid value of Foo=true=x, err: strconv.ParseBool: parsing "true=x": invalid syntax');
    // Locked gates (GA, and deprecated ones locked off): kube's aggregate when several.
    assert.equal(flagError(gates('APIListChunking=false')), 'cannot set feature gate APIListChunking to false, feature is locked to true');
    assert.equal(flagError(gates('AllowServiceLBStatusOnNonLB=true')), 'cannot set feature gate AllowServiceLBStatusOnNonLB to true, feature is locked to false');
    assert.equal(
      flagError(gates('APIListChunking=false,WatchBookmark=false')),
      '[cannot set feature gate APIListChunking to false, feature is locked to true, cannot set feature gate WatchBookmark to false, feature is locked to true]',
    );
    assert.equal(flagError(gates('APIListChunking=false,Foo=true')), '[cannot set feature gate APIListChunking to false, feature is locked to true, unrecognized feature gate: Foo]');
    // A known gate at its kube default changes nothing: accepted, as kube accepts it (GA ones too).
    assert.deepEqual(parsed(gates('kube:WatchList=true,kube:APIListChunking=true', 'kube:ExecProbeTimeout=true,kube:')).featureGates, { WatchList: true, APIListChunking: true, ExecProbeTimeout: true });
    assert.deepEqual(parsed(gates(':APIResponseCompression=true', '')).featureGates, { APIResponseCompression: true });
    // kapi's rule: a gate it does not implement cannot leave its default.
    assert.equal(
      flagError(gates('WatchList=false')),
      "--feature-gates: kapi does not implement feature gate WatchList=false (kube-apiserver 1.32's default is true); only the default value is accepted",
    );
    assert.match(flagError(gates('ExecProbeTimeout=false,APIServingWithRoutine=true')), /kapi does not implement feature gates ExecProbeTimeout=false .*, APIServingWithRoutine=true /);
    // The gates kapi implements take either value.
    assert.deepEqual(
      parsed(gates('ConsistentListFromCache=false,AllowUnsafeMalformedObjectDeletion=true,RemoteRequestHeaderUID=true')).featureGates,
      { ConsistentListFromCache: false, AllowUnsafeMalformedObjectDeletion: true, RemoteRequestHeaderUID: true },
    );
  });

  void it('expands AllAlpha/AllBeta as kube does and refuses them when they change gates kapi does not implement', () => {
    const gates = (value: string) => ['--etcd-servers=x', `--feature-gates=${value}`];
    const allAlpha = flagError(gates('AllAlpha=true'));
    assert.match(allAlpha, /^--feature-gates: AllAlpha=true changes feature gates kapi does not implement \(.*\bAPIServingWithRoutine\b.*\); set each to its default explicitly or drop AllAlpha$/);
    assert.doesNotMatch(allAlpha, /AllowUnsafeMalformedObjectDeletion|RemoteRequestHeaderUID|WatchList/, 'implemented and beta gates are not listed');
    assert.match(flagError(gates('AllBeta=false')), /AllBeta=false changes feature gates kapi does not implement \(.*\bWatchList\b/);
    assert.match(flagError(gates('AllBeta=true')), /AllBeta=true changes feature gates kapi does not implement \(.*\bVolumeAttributesClass\b/);
    // WindowsHostNetwork is the one alpha gate on by default in 1.32.
    assert.match(flagError(gates('AllAlpha=false')), /AllAlpha=false changes feature gates kapi does not implement \(WindowsHostNetwork\)/);
    const f = parsed(gates('AllAlpha=false,WindowsHostNetwork=true,AllowUnsafeMalformedObjectDeletion=true'));
    assert.equal(f.featureGates['AllowUnsafeMalformedObjectDeletion'], true, 'an explicit value wins over AllAlpha');
    assert.equal(f.featureGates['RemoteRequestHeaderUID'], false, 'AllAlpha=false sets the implemented alpha gates too');
    assert.equal(f.featureGates['AllAlpha'], false);
  });

  void it('rejects unknown flags, stray arguments and bad values with kube texts', () => {
    assert.equal(flagError(['--etcd-servers=x', '--x']), 'unknown flag: --x');
    assert.equal(flagError(['--etcd-servers=x', '--nope=1']), 'unknown flag: --nope');
    assert.equal(flagError(['--etcd-servers=x', '-q']), "unknown shorthand flag: 'q' in -q");
    assert.equal(flagError([]), '--etcd-servers must be specified');
    assert.equal(flagError(['--etcd-servers=x', '--secure-port=abc']), 'invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid syntax');
    assert.equal(flagError(['--etcd-servers=x', '--secure-port=0']), '--secure-port 0 must be between 1 and 65535, inclusive. It cannot be turned off with 0');
    assert.equal(flagError(['--etcd-servers=x', '--watch-cache=maybe']), 'invalid argument "maybe" for "--watch-cache" flag: strconv.ParseBool: parsing "maybe": invalid syntax');
    assert.equal(parsed(['--etcd-servers=x', '--max-connections=500']).maxConnections, 500);
    assert.equal(parsed(['--etcd-servers=x', '--goaway-chance=.001']).goawayChance, 0.001);
    assert.equal(parsed(['--etcd-servers=x']).goawayChance, 0);
    assert.equal(flagError(['--etcd-servers=x', '--goaway-chance=0.03']), '--goaway-chance can not be less than 0 or greater than 0.02');
    assert.equal(flagError(['--etcd-servers=x', '--goaway-chance=-1e-3']), '--goaway-chance can not be less than 0 or greater than 0.02');
    assert.equal(flagError(['--etcd-servers=x', '--goaway-chance=often']), 'invalid argument "often" for "--goaway-chance" flag: strconv.ParseFloat: parsing "often": invalid syntax');
    assert.equal(parsed(['--etcd-servers=x', '--http2-max-streams-per-connection=250']).http2MaxStreamsPerConnection, 250);
    assert.equal(parsed(['--etcd-servers=x', '--disable-http2-serving']).disableHttp2Serving, true);
    assert.equal(flagError(['--etcd-servers=x', '--max-connections=-1']), '--max-connections can not be negative value');
    assert.equal(flagError(['--etcd-servers=x', '--request-timeout=5']), 'invalid argument "5" for "--request-timeout" flag: time: missing unit in duration "5"');
    assert.equal(flagError(['--etcd-servers=x', '--request-timeout=soon']), 'invalid argument "soon" for "--request-timeout" flag: time: invalid duration "soon"');
    assert.equal(flagError(['--etcd-servers=x', '--secure-port']), 'flag needs an argument: --secure-port');
    assert.equal(flagError(['--etcd-servers=x', 'serve']), '"kapi-apiserver" does not take any arguments, got ["serve"]');
    assert.equal(flagError(['--etcd-servers=x', '--tls-cert-file=a.crt']), '--tls-cert-file and --tls-private-key-file must be given together');
  });

  void it('service network flags: defaults, values and kube\'s errors', () => {
    const etcd = '--etcd-servers=http://127.0.0.1:2379';
    const defaults = parsed([etcd]);
    assert.equal(defaults.serviceClusterIPRange, '');
    assert.equal(defaults.serviceNodePortRange, '30000-32767');
    assert.equal(defaults.advertiseAddress, '');
    assert.equal(defaults.endpointReconcilerType, 'lease');
    const set = parsed([etcd, '--service-cluster-ip-range=10.96.0.0/12', '--service-node-port-range=31000-31999', '--advertise-address=192.0.2.10', '--endpoint-reconciler-type=none']);
    assert.deepEqual([set.serviceClusterIPRange, set.serviceNodePortRange, set.advertiseAddress, set.endpointReconcilerType], ['10.96.0.0/12', '31000-31999', '192.0.2.10', 'none']);
    assert.equal(flagError([etcd, '--service-cluster-ip-range=foo']), 'service-cluster-ip-range[0] is not a valid cidr');
    assert.equal(flagError([etcd, '--service-cluster-ip-range=10.0.0.0/8']), 'specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12');
    assert.equal(flagError([etcd, '--service-cluster-ip-range=10.0.0.0/24,10.1.0.0/24']), '--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family');
    assert.equal(flagError([etcd, '--service-cluster-ip-range=10.0.0.0/24,fd00::/108,10.2.0.0/24']), '--service-cluster-ip-range must not contain more than two entries');
    assert.match(flagError([etcd, '--service-cluster-ip-range=10.0.0.0/24,fd00::/108']), /dual-stack .* not implemented by kapi/);
    assert.equal(flagError([etcd, '--service-cluster-ip-range=fd00::/64', '--advertise-address=192.0.2.2']), '[specified --service-cluster-ip-range is too large; for 128-bit addresses, the mask must be >= 108, service IP family "fd00::/64" must match public address family "192.0.2.2"]');
    assert.equal(flagError([etcd, '--service-node-port-range=foo']), 'invalid argument "foo" for "--service-node-port-range" flag: strconv.Atoi: parsing "foo": invalid syntax');
    assert.equal(flagError([etcd, '--service-node-port-range=30000-40000x']), 'invalid argument "30000-40000x" for "--service-node-port-range" flag: strconv.Atoi: parsing "40000x": invalid syntax');
    assert.equal(flagError([etcd, '--service-node-port-range=3-2']), 'invalid argument "3-2" for "--service-node-port-range" flag: end port cannot be less than start port: 3-2');
    assert.equal(flagError([etcd, '--advertise-address=foo']), 'invalid argument "foo" for "--advertise-address" flag: failed to parse IP: "foo"');
    assert.equal(flagError([etcd, '--endpoint-reconciler-type=bogus']), 'Reconciler not implemented: bogus');
  });

  void it('returns help for -h and --help, and the usage lists the flags', () => {
    assert.equal(parseFlags(['-h']), 'help');
    assert.equal(parseFlags(['--etcd-servers=x', '--help']), 'help');
    const text = usage();
    assert.match(text, /--etcd-servers strings/);
    assert.match(text, /--secure-port int .*\(default 6443\)/);
    assert.match(text, /--request-timeout duration .*\(default 1m0s\)/);
  });
});

void describe('Go durations', () => {
  void it('parses and formats like Go', () => {
    assert.equal(parseGoDuration('1m0s'), 60_000);
    assert.equal(parseGoDuration('1h30m'), 5_400_000);
    assert.equal(parseGoDuration('1.5s'), 1500);
    assert.equal(parseGoDuration('300ms'), 300);
    assert.equal(parseGoDuration('0'), 0);
    assert.equal(parseGoDuration('-2s'), -2000);
    assert.throws(() => parseGoDuration(''), /time: invalid duration ""/);
    assert.throws(() => parseGoDuration('1x'), /time: unknown unit "x" in duration "1x"/);
    assert.equal(formatGoDuration(60_000), '1m0s');
    assert.equal(formatGoDuration(300_000), '5m0s');
    assert.equal(formatGoDuration(3_600_000), '1h0m0s');
    assert.equal(formatGoDuration(1500), '1.5s');
  });
});

void describe('kapi-apiserver binary', () => {
  const bin = fileURLToPath(new URL('./bin.js', import.meta.url));
  void it('exits 1 with kube-style errors', () => {
    const unknown = spawnSync(process.execPath, [bin, '--etcd-servers=http://127.0.0.1:1', '--x'], { encoding: 'utf8' });
    assert.equal(unknown.status, 1);
    assert.equal(unknown.stderr, 'Error: unknown flag: --x\n');
    const missing = spawnSync(process.execPath, [bin], { encoding: 'utf8' });
    assert.equal(missing.status, 1);
    assert.equal(missing.stderr, 'Error: --etcd-servers must be specified\n');
  });
  void it('prints usage for --help and exits 0', () => {
    const help = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /Usage:\n {2}kapi-apiserver \[flags\]/);
  });
  void it('prints the version for --version (one line) and --version=raw (Go\'s version.Info) and exits 0', () => {
    const line = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
    assert.equal(line.status, 0);
    assert.match(line.stdout, /^Kubernetes v1\.32\.\d+\S*\n$/);
    const raw = spawnSync(process.execPath, [bin, '--version=raw'], { encoding: 'utf8' });
    assert.equal(raw.status, 0);
    assert.match(raw.stdout, /^version\.Info\{Major:"1", Minor:"32", GitVersion:"v1\.32\.[^"]+", GitCommit:"[0-9a-f]{40}", GitTreeState:"clean", BuildDate:"[^"]+", GoVersion:"[^"]+", Compiler:"tsc", Platform:"[^"]+"\}\n$/);
  });
});

void describe('watch timeouts', () => {
  void it('timeoutSeconds wins; otherwise random in [min, 2×min) of --min-request-timeout', () => {
    assert.equal(watchTimeoutMs(5, 1800), 5000);
    assert.equal(watchTimeoutMs(-3, 1800), 0);
    assert.equal(watchTimeoutMs(undefined, 1800, () => 0), 1_800_000);
    assert.equal(watchTimeoutMs(0, 1800, () => 0.5), 2_700_000);
    assert.ok(watchTimeoutMs(undefined, 1800, () => 0.999999)! < 3_600_000);
    assert.equal(watchTimeoutMs(undefined, 0), undefined);
  });
});

void describe('operability flags', () => {
  void it('has kube\'s defaults for shutdown, health, storage metrics and tracing', () => {
    const f = parsed(['--etcd-servers=http://127.0.0.1:2379']);
    assert.equal(f.shutdownDelayMs, 0);
    assert.equal(f.shutdownSendRetryAfter, false);
    assert.equal(f.shutdownWatchTerminationGracePeriodMs, 0);
    assert.equal(f.livezGracePeriodMs, 0);
    assert.equal(f.etcdCountMetricPollPeriodMs, 60_000);
    assert.equal(f.etcdDbMetricPollIntervalMs, 30_000);
    assert.equal(f.etcdHealthcheckTimeoutMs, 2000);
    assert.equal(f.etcdReadycheckTimeoutMs, 2000);
    assert.equal(f.maxRequestsInflight, 400);
    assert.equal(f.maxMutatingRequestsInflight, 200);
    assert.equal(f.tracingConfigFile, '');
    assert.equal(f.loggingFormat, 'json');
  });

  void it('parses them', () => {
    const f = parsed([
      '--etcd-servers=http://127.0.0.1:2379', '--shutdown-delay-duration=70s', '--shutdown-send-retry-after',
      '--shutdown-watch-termination-grace-period=25s', '--livez-grace-period=1m', '--etcd-count-metric-poll-period=0',
      '--tracing-config-file=/etc/tracing.yaml', '--logging-format=text', '--max-requests-inflight=50', '-v=3',
    ]);
    assert.equal(f.shutdownDelayMs, 70_000);
    assert.equal(f.shutdownSendRetryAfter, true);
    assert.equal(f.shutdownWatchTerminationGracePeriodMs, 25_000);
    assert.equal(f.livezGracePeriodMs, 60_000);
    assert.equal(f.etcdCountMetricPollPeriodMs, 0);
    assert.equal(f.tracingConfigFile, '/etc/tracing.yaml');
    assert.equal(f.loggingFormat, 'text');
    assert.equal(f.maxRequestsInflight, 50);
    assert.equal(f.verbosity, 3);
    assert.match(flagError(['--etcd-servers=x', '--logging-format=xml']), /Unsupported log format "xml"/);
    assert.match(flagError(['--etcd-servers=x', '--shutdown-delay-duration=-1s']), /can not be negative/);
  });
});

void describe('leader election flags (kube-controller-manager\'s)', () => {
  void it('has kube-controller-manager\'s defaults', () => {
    const f = parsed(['--etcd-servers=http://127.0.0.1:2379']);
    assert.equal(f.leaderElect, true);
    assert.equal(f.leaderElectLeaseDurationMs, 15_000);
    assert.equal(f.leaderElectRenewDeadlineMs, 10_000);
    assert.equal(f.leaderElectRetryPeriodMs, 2_000);
    assert.equal(f.leaderElectResourceNamespace, 'kube-system');
    assert.equal(f.leaderElectResourceName, 'kapi-controller-manager');
    assert.match(usage(), /--leader-elect-lease-duration duration .*\(default 15s\)/);
  });

  void it('--enable-garbage-collector defaults to true and can be turned off', () => {
    assert.equal(parsed(['--etcd-servers=x']).enableGarbageCollector, true);
    assert.equal(parsed(['--etcd-servers=x', '--enable-garbage-collector=false']).enableGarbageCollector, false);
  });

  void it('parses them and refuses timings client-go\'s leader elector refuses', () => {
    const f = parsed([
      '--etcd-servers=x', '--leader-elect-lease-duration=4s', '--leader-elect-renew-deadline=3s', '--leader-elect-retry-period=500ms',
      '--leader-elect-resource-namespace=kapi-system', '--leader-elect-resource-name=lock',
    ]);
    assert.deepEqual([f.leaderElectLeaseDurationMs, f.leaderElectRenewDeadlineMs, f.leaderElectRetryPeriodMs], [4000, 3000, 500]);
    assert.deepEqual([f.leaderElectResourceNamespace, f.leaderElectResourceName], ['kapi-system', 'lock']);
    assert.equal(flagError(['--etcd-servers=x', '--leader-elect-lease-duration=10s']), 'leaseDuration must be greater than renewDeadline');
    assert.equal(flagError(['--etcd-servers=x', '--leader-elect-renew-deadline=15s']), 'leaseDuration must be greater than renewDeadline');
    assert.equal(flagError(['--etcd-servers=x', '--leader-elect-retry-period=9s']), 'renewDeadline must be greater than retryPeriod*JitterFactor');
    assert.equal(flagError(['--etcd-servers=x', '--leader-elect-retry-period=0s']), 'retryPeriod must be greater than zero');
    assert.match(flagError(['--etcd-servers=x', '--leader-elect-resource-name=']), /resourceName is required/);
    // With --leader-elect=false the timings are not checked (kube-controller-manager ignores them too).
    assert.equal(parsed(['--etcd-servers=x', '--leader-elect=false', '--leader-elect-lease-duration=1s']).leaderElect, false);
  });
});

void describe('--workers (kapi extension)', () => {
  void it('defaults to one process, takes 0 (one per CPU) or a count, refuses a negative one and a rotated audit file with several', () => {
    assert.equal(parsed(['--etcd-servers=x']).workers, 1);
    assert.equal(parsed(['--etcd-servers=x', '--workers=0']).workers, 0);
    assert.equal(parsed(['--etcd-servers=x', '--workers=4']).workers, 4);
    assert.equal(flagError(['--etcd-servers=x', '--workers=-1']), '--workers can not be negative value');
    const audit = ['--etcd-servers=x', '--audit-policy-file=p.yaml', '--audit-log-path=/tmp/audit.log'];
    assert.match(flagError([...audit, '--workers=2']), /^--audit-log-path \(a file\) needs --workers=1/);
    assert.equal(parsed([...audit.slice(0, 2), '--audit-log-path=-', '--workers=2']).workers, 2);
    assert.match(usage(), /--workers int +The number of server processes of this apiserver \(kapi extension/);
  });
});

void describe('--etcd-max-request-bytes (kapi extension)', () => {
  void it('defaults to etcd\'s --max-request-bytes, parses a value and refuses 0 or less', () => {
    assert.equal(parsed(['--etcd-servers=http://127.0.0.1:2379']).etcdMaxRequestBytes, 1572864);
    assert.equal(parsed(['--etcd-servers=http://127.0.0.1:2379', '--etcd-max-request-bytes=10485760']).etcdMaxRequestBytes, 10485760);
    assert.equal(flagError(['--etcd-servers=x', '--etcd-max-request-bytes=0']), '--etcd-max-request-bytes must be greater than 0');
    assert.match(usage(), /--etcd-max-request-bytes int +The etcd cluster's --max-request-bytes \(kapi extension/);
  });

  void it('parses the authentication and authorization flags with kube\'s defaults', () => {
    const defaults = parsed(['--etcd-servers=x']);
    assert.deepEqual(defaults.authorizationModes, ['AlwaysAllow']);
    assert.equal(defaults.anonymousAuth, true);
    // kube resets --anonymous-auth to false whenever AlwaysAllow is a mode.
    assert.equal(anonymousAllowed(defaults), false);
    const rbac = parsed(['--etcd-servers=x', '--authorization-mode=RBAC', '--client-ca-file=/ca.crt', '--token-auth-file=/t.csv']);
    assert.deepEqual(rbac.authorizationModes, ['RBAC']);
    assert.equal(anonymousAllowed(rbac), true);
    assert.equal(rbac.clientCaFile, '/ca.crt');
    assert.equal(rbac.tokenAuthFile, '/t.csv');
    assert.equal(anonymousAllowed(parsed(['--etcd-servers=x', '--authorization-mode=RBAC', '--anonymous-auth=false'])), false);
    assert.equal(flagError(['--etcd-servers=x', '--authorization-mode=Foo']), 'authorization-mode "Foo" is not a valid mode');
    assert.equal(flagError(['--etcd-servers=x', '--authorization-mode=RBAC,RBAC']), 'authorization-mode "RBAC" has mode specified more than once');
    assert.equal(flagError(['--etcd-servers=x', '--authorization-mode=']), 'at least one authorization-mode must be passed');
    for (const mode of ['Webhook', 'ABAC']) {
      assert.equal(flagError(['--etcd-servers=x', `--authorization-mode=${mode},RBAC`]), `authorization-mode ${mode} is not implemented by kapi (built: AlwaysAllow, AlwaysDeny, RBAC, Node)`);
    }
    assert.deepEqual(parsed(['--etcd-servers=x', '--authorization-mode=Node,RBAC']).authorizationModes, ['Node', 'RBAC']);
  });

  void it('refuses security flags kapi does not implement instead of ignoring them', () => {
    for (const flag of ['service-account-signing-endpoint', 'tls-min-version']) {
      assert.equal(flagError(['--etcd-servers=x', `--${flag}=/some/value`]), `--${flag} is not implemented by kapi`);
    }
    // Front-proxy authentication: kube's checks of the header lists.
    const headers = parsed(['--etcd-servers=x', '--requestheader-client-ca-file=/fp.crt', '--requestheader-allowed-names=front-proxy-client', '--requestheader-username-headers=X-Remote-User', '--requestheader-group-headers=X-Remote-Group', '--requestheader-extra-headers-prefix=X-Remote-Extra-']);
    assert.deepEqual(headers.requestHeader, { clientCaFile: '/fp.crt', allowedNames: ['front-proxy-client'], usernameHeaders: ['X-Remote-User'], uidHeaders: [], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'] });
    assert.equal(flagError(['--etcd-servers=x', '--requestheader-uid-headers=X-Remote-Uid']), '--requestheader-uid-headers requires the "RemoteRequestHeaderUID" feature to be enabled');
    assert.deepEqual(parsed(['--etcd-servers=x', '--feature-gates=RemoteRequestHeaderUID=true', '--requestheader-uid-headers=X-Remote-Uid']).requestHeader.uidHeaders, ['X-Remote-Uid']);
    assert.equal(flagError(['--etcd-servers=x', '--enable-bootstrap-token-auth']), '--enable-bootstrap-token-auth is not implemented by kapi');
    // Encryption configurations are read once, at start.
    assert.equal(flagError(['--etcd-servers=x', '--encryption-provider-config-automatic-reload']), '--encryption-provider-config-automatic-reload is not implemented by kapi');
    // An empty value (kwokctl's --admission-control=) is accepted and, as in kube, runs no plugin.
    assert.deepEqual(parsed(['--etcd-servers=x', '--admission-control=', '--enable-bootstrap-token-auth=false']).admissionPlugins, []);
  });

  void it('takes --profiling (default true), and refuses --contention-profiling, which has no V8 meaning', () => {
    assert.equal(parsed(['--etcd-servers=x']).profiling, true);
    assert.equal(parsed(['--etcd-servers=x', '--profiling=false']).profiling, false);
    assert.equal(flagError(['--etcd-servers=x', '--profiling=maybe']), 'invalid argument "maybe" for "--profiling" flag: strconv.ParseBool: parsing "maybe": invalid syntax');
    assert.equal(flagError(['--etcd-servers=x', '--contention-profiling']), '--contention-profiling is not implemented by kapi');
    assert.equal(parsed(['--etcd-servers=x', '--contention-profiling=false']).profiling, true);
    assert.equal(flagError(['--etcd-servers=x', '--debug-socket-path=/tmp/s']), 'unknown flag: --debug-socket-path');
  });

  void it('takes --storage-media-type as kube does, and --encryption-provider-config', () => {
    assert.equal(parsed(['--etcd-servers=x']).storageMediaType, 'application/vnd.kubernetes.protobuf');
    assert.equal(parsed(['--etcd-servers=x', '--storage-media-type=application/json']).storageMediaType, 'application/json');
    assert.equal(parsed(['--etcd-servers=x', '--storage-media-type=application/yaml']).storageMediaType, 'application/yaml');
    assert.equal(
      flagError(['--etcd-servers=x', '--storage-media-type=text/plain']),
      '--storage-media-type "text/plain" invalid, allowed values: application/json, application/vnd.kubernetes.protobuf, application/yaml',
    );
    assert.equal(parsed(['--etcd-servers=x', '--encryption-provider-config=/etc/enc.yaml']).encryptionProviderConfig, '/etc/enc.yaml');
  });

  void it('reads the etcd TLS and audit log flags, with kube\'s defaults and checks', () => {
    const flags = parsed(['--etcd-servers=https://e:2379', '--etcd-cafile=/ca', '--etcd-certfile=/c', '--etcd-keyfile=/k', '--audit-policy-file=/p', '--audit-log-path=-']);
    assert.deepEqual([flags.etcdCaFile, flags.etcdCertFile, flags.etcdKeyFile], ['/ca', '/c', '/k']);
    assert.deepEqual(flags.audit, { policyFile: '/p', logPath: '-', maxAgeDays: 0, maxBackups: 0, maxSizeMb: 0, compress: false, mode: 'blocking', bufferSize: 10000, maxBatchSize: 1, maxBatchWaitMs: 0 });
    const batch = parsed(['--etcd-servers=x', '--audit-log-path=/l', '--audit-log-mode=batch', '--audit-log-batch-max-size=50', '--audit-log-batch-max-wait=2s', '--audit-log-truncate-enabled', '--audit-log-maxsize=5', '--audit-log-compress']);
    assert.equal(batch.audit.maxBatchWaitMs, 2000);
    assert.equal(batch.audit.truncateMaxEventBytes, 102400);
    assert.equal(batch.audit.truncateMaxBatchBytes, 10485760);
    assert.equal(batch.audit.compress, true);
    // kube's texts (checked against kube-apiserver 1.32).
    const log = ['--etcd-servers=x', '--audit-log-path=/l'];
    assert.equal(flagError([...log, '--audit-log-mode=foo']), 'invalid audit log mode foo, allowed modes are "batch,blocking,blocking-strict"');
    assert.equal(flagError([...log, '--audit-log-version=v2']), 'invalid group version, allowed versions are ["audit.k8s.io/v1"]');
    assert.equal(flagError([...log, '--audit-log-format=bogus']), 'invalid audit log format bogus, allowed formats are "legacy,json"');
    assert.equal(flagError([...log, '--audit-log-maxage=-1']), "--audit-log-maxage -1 can't be a negative number");
    assert.equal(flagError([...log, '--audit-log-maxbackup=-3']), "--audit-log-maxbackup -3 can't be a negative number");
    assert.equal(flagError([...log, '--audit-log-maxsize=-2']), "--audit-log-maxsize -2 can't be a negative number");
    assert.equal(flagError([...log, '--audit-log-mode=batch', '--audit-log-batch-buffer-size=0']), 'invalid audit batch log buffer size 0, must be a positive number');
    assert.equal(flagError([...log, '--audit-log-mode=batch', '--audit-log-batch-max-size=0']), 'invalid audit batch log max batch size 0, must be a positive number');
    // kube checks the truncate sizes even with truncating off, and not the max wait.
    assert.equal(flagError([...log, '--audit-log-truncate-max-event-size=0']), 'invalid audit truncate log max event size 0, must be a positive number');
    assert.equal(flagError([...log, '--audit-log-truncate-enabled', '--audit-log-truncate-max-batch-size=10']), 'invalid audit truncate log max batch size 10, must be greater than max event size (102400)');
    assert.equal(parsed([...log, '--audit-log-mode=batch', '--audit-log-batch-max-wait=-1s']).audit.maxBatchWaitMs, -1000);
    // What kapi does not build is refused, not ignored.
    assert.equal(flagError([...log, '--audit-log-format=legacy']), '--audit-log-format=legacy is not implemented by kapi (json is)');
    assert.equal(flagError([...log, '--audit-log-mode=batch', '--audit-log-batch-throttle-enable']), '--audit-log-batch-throttle-enable is not implemented by kapi');
    // Without a log path kube does not check the log options.
    assert.equal(parsed(['--etcd-servers=x', '--audit-log-mode=foo']).audit.mode, 'foo');
  });

  void it('reads the audit webhook flags with kube\'s defaults, and checks them as kube does', () => {
    const hook = ['--etcd-servers=x', '--audit-policy-file=/p', '--audit-webhook-config-file=/w.kubeconfig'];
    assert.deepEqual(parsed(hook).audit.webhook, { configFile: '/w.kubeconfig', mode: 'batch', initialBackoffMs: 10_000, bufferSize: 10000, maxBatchSize: 400, maxBatchWaitMs: 30_000, throttle: { qps: 10, burst: 15 } });
    const tuned = parsed([...hook, '--audit-webhook-mode=blocking-strict', '--audit-webhook-initial-backoff=250ms', '--audit-webhook-batch-throttle-enable=false', '--audit-webhook-truncate-enabled', '--audit-webhook-truncate-max-event-size=2048', '--audit-webhook-truncate-max-batch-size=4096']).audit.webhook;
    assert.deepEqual(tuned, { configFile: '/w.kubeconfig', mode: 'blocking-strict', initialBackoffMs: 250, bufferSize: 10000, maxBatchSize: 400, maxBatchWaitMs: 30_000, truncate: { maxEventBytes: 2048, maxBatchBytes: 4096 } });
    assert.equal(parsed(['--etcd-servers=x', '--audit-webhook-mode=foo']).audit.webhook, undefined);
    // kube's texts (checked against kube-apiserver 1.32).
    assert.equal(flagError([...hook, '--audit-webhook-mode=foo']), 'invalid audit webhook mode foo, allowed modes are "batch,blocking,blocking-strict"');
    assert.equal(flagError([...hook, '--audit-webhook-batch-buffer-size=0']), 'invalid audit batch webhook buffer size 0, must be a positive number');
    assert.equal(flagError([...hook, '--audit-webhook-batch-max-size=0']), 'invalid audit batch webhook max batch size 0, must be a positive number');
    assert.equal(flagError([...hook, '--audit-webhook-batch-throttle-qps=-0.5']), 'invalid audit batch webhook throttle QPS -0.5, must be a positive number');
    assert.equal(flagError([...hook, '--audit-webhook-batch-throttle-burst=0']), 'invalid audit batch webhook throttle burst 0, must be a positive number');
    assert.equal(parsed([...hook, '--audit-webhook-batch-throttle-enable=false', '--audit-webhook-batch-throttle-qps=0']).audit.webhook?.throttle, undefined);
    assert.equal(parsed([...hook, '--audit-webhook-mode=blocking', '--audit-webhook-batch-max-size=0']).audit.webhook?.mode, 'blocking');
    assert.equal(flagError([...hook, '--audit-webhook-truncate-max-event-size=0']), 'invalid audit truncate webhook max event size 0, must be a positive number');
    assert.equal(flagError([...hook, '--audit-webhook-truncate-enabled', '--audit-webhook-truncate-max-batch-size=10']), 'invalid audit truncate webhook max batch size 10, must be greater than max event size (102400)');
    assert.equal(flagError([...hook, '--audit-webhook-version=audit.k8s.io/v1beta1']), 'invalid group version, allowed versions are ["audit.k8s.io/v1"]');
  });
});

void describe('service account and admission flags (kube\'s validation)', () => {
  const sa = ['--etcd-servers=x', '--service-account-issuer=https://kubernetes.default.svc', '--service-account-key-file=/k.pub', '--service-account-signing-key-file=/k.key'];
  void it('reads the issuers (repeatable, not comma-split), keys, audiences and expirations', () => {
    const flags = parsed([...sa, '--service-account-issuer=https://a,b', '--service-account-key-file=/other.pem', '--api-audiences=x,y', '--service-account-max-token-expiration=2h', '--service-account-extend-token-expiration=false']);
    assert.deepEqual(flags.serviceAccountIssuers, ['https://kubernetes.default.svc', 'https://a,b']);
    assert.deepEqual(flags.serviceAccountKeyFiles, ['/k.pub', '/other.pem']);
    assert.deepEqual(flags.apiAudiences, ['x', 'y']);
    assert.equal(flags.serviceAccountMaxTokenExpirationMs, 7_200_000);
    assert.equal(flags.serviceAccountExtendTokenExpiration, false);
    assert.equal(parsed(sa).serviceAccountExtendTokenExpiration, true);
    assert.equal(parsed(sa).serviceAccountLookup, true);
    assert.deepEqual(parsed(['--etcd-servers=x']).serviceAccountIssuers, [], 'kapi starts without service account tokens');
  });
  void it('refuses incomplete or invalid service account flags with kube\'s texts', () => {
    assert.equal(flagError(['--etcd-servers=x', '--service-account-issuer=https://x']),
      '[either `--service-account-key-file` or `--service-account-signing-endpoint` must be set, --service-account-signing-key-file, --service-account-issuer, and --api-audiences should be specified together]');
    assert.equal(flagError(['--etcd-servers=x', '--service-account-issuer=https://x', '--service-account-signing-key-file=/k']), 'either `--service-account-key-file` or `--service-account-signing-endpoint` must be set');
    assert.equal(flagError(['--etcd-servers=x', '--service-account-signing-key-file=/k']),
      '[service-account-issuer is a required flag, either `--service-account-key-file` or `--service-account-signing-endpoint` must be set, --service-account-signing-key-file, --service-account-issuer, and --api-audiences should be specified together]');
    assert.equal(flagError([...sa, '--service-account-issuer=https://kubernetes.default.svc']), 'service-account-issuer "https://kubernetes.default.svc" is already specified');
    assert.equal(flagError([...sa, '--service-account-max-token-expiration=1m']), 'the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
  });
  void it('resolves the admission plugins from kube\'s default set, refusing unknown, overlapping and unbuilt ones', () => {
    // kube's default-enabled plugins that kapi builds, in kube's order.
    const DEFAULTS = [
      'NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'TaintNodesByCondition', 'PodSecurity', 'Priority', 'DefaultTolerationSeconds', 'DefaultStorageClass',
      'StorageObjectInUseProtection', 'PersistentVolumeClaimResize', 'RuntimeClass', 'CertificateApproval', 'CertificateSigning', 'ClusterTrustBundleAttest',
      'CertificateSubjectRestriction', 'DefaultIngressClass', 'MutatingAdmissionPolicy', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy',
      'ValidatingAdmissionWebhook', 'ResourceQuota',
    ];
    const without = (...names: string[]) => DEFAULTS.filter((n) => !names.includes(n));
    assert.deepEqual(parsed(['--etcd-servers=x']).admissionPlugins, DEFAULTS);
    assert.deepEqual(parsed(['--etcd-servers=x', '--disable-admission-plugins=ServiceAccount,PodSecurity,ValidatingAdmissionWebhook']).admissionPlugins, without('ServiceAccount', 'PodSecurity', 'ValidatingAdmissionWebhook'));
    assert.deepEqual(parsed(['--etcd-servers=x', '--admission-control=ServiceAccount']).admissionPlugins, ['ServiceAccount']);
    assert.deepEqual(parsed(['--etcd-servers=x', '--enable-admission-plugins=NamespaceLifecycle,ServiceAccount']).admissionPlugins, DEFAULTS);
    assert.equal(flagError(['--etcd-servers=x', '--enable-admission-plugins=Foo']), 'enable-admission-plugins plugin "Foo" is unknown');
    assert.equal(flagError(['--etcd-servers=x', '--disable-admission-plugins=Bar']), 'disable-admission-plugins plugin "Bar" is unknown');
    assert.equal(flagError(['--etcd-servers=x', '--admission-control=Baz']), 'admission-control plugin "Baz" is unknown');
    assert.equal(flagError(['--etcd-servers=x', '--enable-admission-plugins=ServiceAccount', '--disable-admission-plugins=ServiceAccount']), '[ServiceAccount] in enable-admission-plugins and disable-admission-plugins overlapped');
    assert.equal(flagError(['--etcd-servers=x', '--admission-control=NamespaceLifecycle', '--enable-admission-plugins=ServiceAccount']), 'admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive');
    // kube tells a flag given empty from one not given: both still count as given.
    assert.equal(flagError(['--etcd-servers=x', '--admission-control=', '--disable-admission-plugins=']), 'admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive');
    assert.deepEqual(parsed(['--etcd-servers=x', '--admission-control=NamespaceLifecycle,ServiceAccount']).admissionPlugins, ['NamespaceLifecycle', 'ServiceAccount']);
    assert.deepEqual(parsed(['--etcd-servers=x', '--enable-admission-plugins=NodeRestriction']).admissionPlugins, ['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'NodeRestriction', ...DEFAULTS.slice(3)]);
    assert.deepEqual(parsed(['--etcd-servers=x', '--disable-admission-plugins=ValidatingAdmissionPolicy']).admissionPlugins, without('ValidatingAdmissionPolicy'));
    assert.equal(parsed(['--etcd-servers=x', '--default-not-ready-toleration-seconds=60']).defaultNotReadyTolerationSeconds, 60);
    assert.equal(parsed(['--etcd-servers=x']).defaultUnreachableTolerationSeconds, 300);
    assert.equal(flagError(['--etcd-servers=x', '--enable-admission-plugins=AlwaysPullImages']), `admission plugin AlwaysPullImages is not implemented by kapi (built: ${BUILT_PLUGINS.join(', ')})`);
  });
});

void describe('--controllers (kube-controller-manager\'s, for the controllers kapi runs)', () => {
  const enabled = (args: string[]) => [...parsed(['--etcd-servers=x', ...args]).enabledControllers].sort();
  const ALL = [
    'clusterrole-aggregation-controller', 'garbage-collector-controller', 'namespace-controller', 'persistentvolume-protection-controller', 'persistentvolumeclaim-protection-controller',
    'resourcequota-controller', 'root-ca-certificate-publisher-controller', 'serviceaccount-controller', 'serviceaccount-token-controller', 'validatingadmissionpolicy-status-controller',
  ];
  void it('enables every kube-controller-manager controller kapi runs by default; `*`, `name` and `-name` as KCM reads them', () => {
    assert.deepEqual(enabled([]), ALL);
    assert.deepEqual(enabled(['--controllers=*']), ALL);
    assert.deepEqual(enabled(['--controllers=*,-serviceaccount-controller,-root-ca-cert-publisher']), ALL.filter((n) => n !== 'serviceaccount-controller' && n !== 'root-ca-certificate-publisher-controller'));
    assert.deepEqual(enabled(['--controllers=serviceaccount-token']), ['serviceaccount-token-controller']);
    // As KCM: `*` counts wherever it stands, and the first mention of a controller decides it; without `*` only those named run.
    assert.deepEqual(enabled(['--controllers=-namespace-controller,*']), ALL.filter((n) => n !== 'namespace-controller'));
    assert.deepEqual(enabled(['--controllers=namespace-controller,-namespace']), ['namespace-controller']);
    assert.deepEqual(enabled(['--controllers=-namespace-controller']), []);
  });
  void it('switches off every controller that overlaps kube-controller-manager, by new names and old aliases', () => {
    assert.deepEqual(enabled(['--controllers=-namespace-controller,-garbage-collector-controller,-serviceaccount-controller,-serviceaccount-token-controller,-root-ca-certificate-publisher-controller,-clusterrole-aggregation-controller,-validatingadmissionpolicy-status-controller,-persistentvolumeclaim-protection-controller,-persistentvolume-protection-controller,-resourcequota-controller']), []);
    assert.deepEqual(enabled(['--controllers=*,-namespace,-garbagecollector,-serviceaccount,-serviceaccount-token,-root-ca-cert-publisher,-clusterrole-aggregation,-validatingadmissionpolicy-status,-pvc-protection,-pv-protection,-resourcequota']), []);
    assert.deepEqual(enabled(['--controllers=namespace,garbagecollector']), ['garbage-collector-controller', 'namespace-controller']);
  });
  void it('refuses names kapi does not run (kube-apiserver\'s own work is not switchable)', () => {
    assert.match(flagError(['--etcd-servers=x', '--controllers=*,-deployment-controller']), /^"deployment-controller" is not in the list of known controllers \(kapi runs namespace-controller, garbage-collector-controller, /);
    assert.match(flagError(['--etcd-servers=x', '--controllers=-bootstrap-controller']), /^"bootstrap-controller" is not in the list of known controllers/);
  });
});

void describe('--event-ttl and --lease-reuse-duration-seconds (kube\'s, implemented)', () => {
  void it('default to 1h0m0s and 60, parse values, and are refused only when they do not parse (kube checks no range)', () => {
    const defaults = parsed(['--etcd-servers=x']);
    assert.equal(defaults.eventTtlMs, 3_600_000);
    assert.equal(defaults.leaseReuseDurationSeconds, 60);
    const set = parsed(['--etcd-servers=x', '--event-ttl=2s', '--lease-reuse-duration-seconds=5']);
    assert.equal(set.eventTtlMs, 2000);
    assert.equal(set.leaseReuseDurationSeconds, 5);
    // kube-apiserver 1.32 starts with either (0 turns reuse off; a negative margin shortens leases).
    assert.equal(parsed(['--etcd-servers=x', '--lease-reuse-duration-seconds=0']).leaseReuseDurationSeconds, 0);
    assert.equal(parsed(['--etcd-servers=x', '--event-ttl=0s']).eventTtlMs, 0);
    assert.equal(flagError(['--etcd-servers=x', '--event-ttl=soon']), 'invalid argument "soon" for "--event-ttl" flag: time: invalid duration "soon"');
    assert.match(flagError(['--etcd-servers=x', '--lease-reuse-duration-seconds=1.5']), /^invalid argument "1.5" for "--lease-reuse-duration-seconds" flag: strconv.ParseInt/);
    assert.match(usage(), /--event-ttl duration +Amount of time to retain events\. \(default 1h0m0s\)/);
    assert.match(usage(), /--lease-reuse-duration-seconds int +The time in seconds that each lease is reused\./);
  });
});
