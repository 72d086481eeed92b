/**
 * Splits a Go CPU profile of kube-apiserver into the stages kapi's V8 profiles are split into
 * ({@link Stage}), so both servers' costs per request line up. Every sample goes to the
 * innermost frame whose source path a rule names; generic libraries (encoding/json, reflect,
 * sort, sync, context, bufio...) are named by no rule, so their time is their caller's.
 * As for kapi, nested transport layers count as the outermost of them, and as the etcd client
 * under it. Go's runtime is split out: the collector (background marking, assists, sweeping) is
 * GC, the allocator is "allocation", and goroutine stack growth and stacks of the runtime
 * alone (scheduler, netpoller, timers) are "scheduler, stacks, runtime".
 */
import type { FlameStack } from './flame-graph.js';
import type { PprofFrame as GoFrame, PprofProfile as GoProfile } from '@kapi/machinery';
import { Stage, SummaryBuilder, transportStages, type ProfileSummary } from './profile-stages.js';

/**
 * Where a frame's code is: its file without the module version
 * (`k8s.io/apiserver@v0.32.13/pkg/x/y.go` → `k8s.io/apiserver/pkg/x/y.go`), which names the
 * package even for closures inlined into another package's function.
 */
export function sourcePath(frame: GoFrame): string {
  return frame.file.replace(/@[^/]+/, '');
}

const httpNeutral = new Set(['net/http.(*conn).serve', 'net/http.HandlerFunc.ServeHTTP', 'net/http.serverHandler.ServeHTTP']);

const under = (path: string, ...prefixes: string[]) => prefixes.some((p) => path.startsWith(p));

/** [stage, test on a frame's source path and function], first match wins; order matters. */
const rules: [string, (path: string, fn: string) => boolean][] = [
  [Stage.etcdClient, (p) => under(p, 'go.etcd.io/etcd/', 'google.golang.org/grpc/', 'github.com/grpc-ecosystem/', 'go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/')],
  [Stage.watchCache, (p) => under(p, 'k8s.io/apiserver/pkg/storage/cacher/')],
  [Stage.storage, (p) => under(p, 'k8s.io/apiserver/pkg/storage/')],
  [Stage.protobuf, (p) => under(p, 'k8s.io/apimachinery/pkg/runtime/serializer/protobuf/', 'github.com/gogo/protobuf/') || p.endsWith('/generated.pb.go')],
  [Stage.managedFields, (p) => under(p, 'sigs.k8s.io/structured-merge-diff/', 'k8s.io/apimachinery/pkg/util/managedfields/', 'k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager/')],
  [
    Stage.conversion,
    (p, f) => p.endsWith('/zz_generated.conversion.go') || under(p, 'k8s.io/apimachinery/pkg/conversion/', 'k8s.io/apimachinery/pkg/runtime/serializer/versioning/') || /^k8s\.io\/apimachinery\/pkg\/runtime\.\(\*Scheme\)\.(Convert|UnsafeConvert|convert)/.test(f),
  ],
  [Stage.registry, (p) => under(p, 'k8s.io/apiserver/pkg/registry/', 'k8s.io/kubernetes/pkg/registry/', 'k8s.io/kubernetes/pkg/apis/') || p.endsWith('/zz_generated.defaults.go')],
  [Stage.authn, (p) => under(p, 'k8s.io/apiserver/pkg/authentication/', 'k8s.io/apiserver/pkg/authorization/', 'k8s.io/kubernetes/pkg/kubeapiserver/authorizer/') || /endpoints\/filters\/(authentication|authorization|impersonation)\.go$/.test(p)],
  [Stage.audit, (p) => under(p, 'k8s.io/apiserver/pkg/audit/') || /endpoints\/filters\/audit[^/]*\.go$/.test(p)],
  [Stage.admission, (p) => under(p, 'k8s.io/apiserver/pkg/admission/', 'k8s.io/kubernetes/plugin/pkg/admission/')],
  [
    Stage.filters,
    (p) =>
      under(
        p,
        'k8s.io/apiserver/pkg/endpoints/filters/',
        'k8s.io/apiserver/pkg/endpoints/filterlatency/',
        'k8s.io/apiserver/pkg/endpoints/metrics/',
        'k8s.io/apiserver/pkg/endpoints/request/',
        'k8s.io/apiserver/pkg/server/filters/',
        'k8s.io/apiserver/pkg/util/flowcontrol/',
        'k8s.io/component-base/metrics/',
        'k8s.io/component-base/tracing/',
        'github.com/prometheus/',
        'go.opentelemetry.io/',
      ),
  ],
  [Stage.apiserver, (p) => under(p, 'k8s.io/apiserver/', 'k8s.io/kube-aggregator/', 'k8s.io/apiextensions-apiserver/', 'k8s.io/kubernetes/', 'github.com/emicklei/go-restful/')],
  [Stage.machinery, (p) => under(p, 'k8s.io/apimachinery/', 'k8s.io/api/', 'sigs.k8s.io/json/')],
  [Stage.http2, (p) => under(p, 'golang.org/x/net/http2/', 'vendor/golang.org/x/net/http2/') || p.endsWith('net/http/h2_bundle.go')],
  // The connection goroutine's root and the handler adapters are no HTTP/1.1 work of their own:
  // TLS handshakes run under the one, every filter of the chain (over HTTP/2 too) under the others.
  [Stage.http1, (p, f) => under(p, 'net/http/') && !httpNeutral.has(f)],
  [Stage.tls, (p) => under(p, 'crypto/', 'vendor/golang.org/x/crypto/', 'golang.org/x/crypto/')],
  [Stage.sockets, (p) => /^net\/[^/]+$/.test(p) || under(p, 'internal/poll/', 'syscall/')],
];

const gcFunction = /^runtime\.(gc[A-Z]|bgsweep|bgscavenge|sweepone|markroot|scanobject|scanstack|scanblock|greyobject|deductSweepCredit|\(\*gcWork\)|\(\*mspan\)\.sweep|\(\*sweepLocked\))/;

/** Growing a goroutine's stack: copying it and adjusting its frames' pointers. */
const stackGrowth = /^runtime\.(newstack|copystack|morestack)/;

/** The stage of one stack (innermost frame first). */
export function goStageOf(stack: readonly GoFrame[]): string {
  let stage: string | undefined;
  let runtimeOnly = true;
  for (const frame of stack) {
    const fn = frame.function;
    if (fn.startsWith('runtime.')) {
      if (stage === undefined && gcFunction.test(fn)) return Stage.gc;
      if (stage === undefined && fn.startsWith('runtime.mallocgc')) return Stage.allocation;
      if (stage === undefined && stackGrowth.test(fn)) return Stage.scheduler;
      continue;
    }
    runtimeOnly = false;
    const path = sourcePath(frame);
    const found = rules.find(([, test]) => test(path, fn))?.[0];
    if (found === undefined) continue;
    if (stage !== undefined && !transportStages.has(found)) {
      if (found === Stage.etcdClient) stage = found;
      break;
    }
    stage = found;
    if (!transportStages.has(found)) break;
  }
  return stage ?? (runtimeOnly ? Stage.scheduler : Stage.other);
}

/** The index of the CPU-time value (`cpu`/`nanoseconds`) of a CPU profile's samples. */
function cpuValueIndex(profile: GoProfile): number {
  const index = profile.sampleTypes.findIndex(([type, unit]) => type === 'cpu' && unit === 'nanoseconds');
  if (index < 0) throw new Error(`not a CPU profile: sample types ${profile.sampleTypes.map((t) => t.join('/')).join(', ')}`);
  return index;
}

/** CPU time by stage and the functions with the most self time, as {@link summarizeProfile} gives for kapi. */
export function summarizeGoProfile(profile: GoProfile): ProfileSummary {
  const value = cpuValueIndex(profile);
  const summary = new SummaryBuilder(1e6);
  for (const sample of profile.samples) {
    const leaf = sample.stack[0];
    summary.add(goStageOf(sample.stack), sample.values[value] ?? 0, leaf === undefined ? undefined : { name: leaf.function, where: `${sourcePath(leaf)}:${leaf.line}` });
  }
  return summary.build();
}

/** A function's name without its package's directory: `k8s.io/apiserver/pkg/storage/etcd3.(*store).Create` → `etcd3.(*store).Create`. */
function shortName(fn: string): string {
  const bracket = fn.indexOf('[');
  return fn.slice(fn.lastIndexOf('/', bracket < 0 ? fn.length : bracket) + 1);
}

/** The profile's stacks for a flame graph: outermost frame first, weighted by CPU ms. */
export function goFlameStacks(profile: GoProfile): FlameStack[] {
  const value = cpuValueIndex(profile);
  return profile.samples.map((s) => ({
    frames: s.stack.map((f) => ({ name: shortName(f.function), detail: sourcePath(f) })).reverse(),
    weight: (s.values[value] ?? 0) / 1e6,
  }));
}
