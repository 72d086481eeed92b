export const fanoutVariantNames = ['all', 'tls', 'field-selector'] as const;
export type FanoutVariantName = (typeof fanoutVariantNames)[number];
export const scenarioNames = ['crud', 'list', 'fanout', 'memory', 'representations', 'restart', 'mixed', 'large', 'replicas', 'pods', 'admission', 'client-go'] as const;
/** Scenarios that need control of the server (start, kill, restart, fresh servers on its etcd): skipped with --kubeconfig. */
export const serverControlScenarios: readonly ScenarioName[] = ['memory', 'restart', 'replicas'];
export type ScenarioName = (typeof scenarioNames)[number];

/** Options of `kapi-bench suite`. Immutable once parsed. */
export interface SuiteOptions {
  readonly quick: boolean;
  /**
   * Which scenarios run (default all): crud = S1/S2 with raw-etcd baselines, list = S3,
   * fanout = S4, memory = S5, restart = S6, mixed = S7, large = S8, replicas = S9, pods = S10,
   * representations = JSON vs protobuf vs Table, admission = CR creates without vs with a CRD
   * validation rule and a ValidatingAdmissionPolicy.
   */
  readonly scenarios: readonly ScenarioName[];
  /** Concurrent keep-alive clients, one measured step per value. */
  readonly concurrency: readonly number[];
  /** crud: ConfigMap data sizes in bytes, one pass of every step per size (the 1 KiB and 10 KiB). */
  readonly objectSizes: readonly number[];
  /** Measured time per step, ms. */
  readonly durationMs: number;
  /** Warm-up before the first step of each kind, ms (later steps of that kind warm up ≤ 1 s). */
  readonly warmupMs: number;
  /** Target an already running server instead of starting one. */
  readonly url: string | undefined;
  /** Target the server of this kubeconfig (with its CA, client certificate, token). */
  readonly kubeconfig: string | undefined;
  /** With `kubeconfig`: the context (default its current-context). */
  readonly context: string | undefined;
  /** With `url`: the server's pid, for CPU and RSS (optional). */
  readonly serverPid: number | undefined;
  /** `--workers` of the kapi server the suite starts (default 1). */
  readonly workers: number;
  /** etcd for the raw baselines (default: the one the suite starts). */
  readonly etcdServers: string[] | undefined;
  /** Pin processes with taskset when possible (default true). */
  readonly pin: boolean;
  /**
   * crud: clients (gRPC connections) of the Go raw-etcd create baseline, shared by its goroutines
   * (default 1); 0 leaves the Go baseline out (and go unneeded).
   */
  readonly rawEtcdGoClients: number;
  /** Send the HTTP requests (creates, GETs, lists, writes) over HTTP/2 to the server's HTTPS port. */
  readonly http2: boolean;
  /** Directory for `<date>.json` and `<date>.md`. */
  readonly outDir: string;
  /** ConfigMaps (1 KiB of data) listed by the list scenario: the first size. */
  readonly listObjects: number;
  /** Every list size, ascending (the first is `listObjects`). */
  readonly listSizes: readonly number[];
  /** Concurrent lists per list step. */
  readonly listConcurrency: readonly number[];
  /** Measured time per list step and per fan-out rate, ms. */
  readonly scenarioDurationMs: number;
  /** Watch connections of the fan-out scenario. */
  readonly watchers: number;
  /** Writes per second of the fan-out steps. */
  readonly fanoutRates: readonly number[];
  /** S4's variants to run: 'all' (one namespace, plain HTTP, and its bare baseline), 'tls' (HTTPS, HTTP/1.1 and HTTP/2), 'field-selector' (and its bare floor). */
  readonly fanoutVariants: readonly FanoutVariantName[];
  /** Cache sizes (ConfigMaps) at which memory per object is measured. */
  readonly memoryObjects: readonly number[];
  /** Writes per second of S4's field-selector variant. */
  readonly selectorRate: number;
  /** S6: ConfigMaps and informers. */
  readonly restartObjects: number;
  readonly restartInformers: number;
  /** S7: how long the mixed load runs, ms. */
  readonly mixedDurationMs: number;
  /** S8: ConfigMaps of 1 MiB and concurrent lists. */
  readonly largeObjects: number;
  readonly largeConcurrency: number;
  /** S9: consistent LISTs per replica. */
  readonly replicaReads: number;
  /** admission: concurrent creates and plain/with rounds. */
  readonly admissionConcurrency: number;
  readonly admissionRounds: number;
  /**
   * The servers to run the suite against, each on a fresh etcd of its own (default kapi alone,
   * the suite's usual run). With kube-apiserver in the list the run is side by side: HTTPS and a
   * bearer token for both, `repetitions` rounds in alternating order, one comparison table.
   */
  readonly against: readonly ('kapi' | 'kube-apiserver')[];
  /** Side by side: rounds of every server (default 2). */
  readonly repetitions: number;
  /** Side by side: the kube-apiserver binary (default $KAPI_KUBE_APISERVER or ~/.cache/kapi-ref/bin/kube-apiserver). */
  readonly kubeApiserver: string | undefined;
}

export const usage = `usage: kapi-bench suite [options]

  --quick                  short run (small sizes, 2 s steps; under 2 minutes)
  --scenarios LIST         any of crud,list,fanout,memory,representations,restart,mixed,large,replicas,pods,admission,client-go
                           (default all but representations and client-go, and client-go too with
                           --against kube; crud = S1/S2, list = S3, fanout = S4, memory = S5,
                           restart = S6, mixed = S7, large = S8, replicas = S9, pods = S10,
                           admission = CR creates without vs with a CRD rule and a ValidatingAdmissionPolicy,
                           client-go = creates, GETs, LISTs and watch delivery by a client-go
                           program with protobuf, built with go from packages/bench/go)
  --concurrency 1,16,64    crud: concurrent keep-alive clients per step (default 1,16,64,256; quick: 16)
  --object-sizes 1024,10240  crud: ConfigMap data bytes (default 1024,10240; quick too); the first at every --concurrency, the others at 64 (else the first)
  --duration SECONDS       crud: measured time per step (default 4; quick: 2)
  --warmup SECONDS         warm-up before the first step of each kind (default 3; quick: 1); fanout's
                           field-selector variant takes all of it, its other variants at most 3 s
  --list-objects N[,N]     list: ConfigMaps of 1 KiB to list, one pass per size (default 10000,50000; quick: 5000,
                           without the list from etcd and the first page)
  --list-concurrency 1,10  list: concurrent lists per step (default 1,10; quick: 1)
  --scenario-duration SEC  list, fanout, large, replicas: measured time per step (default 5; quick: 2)
  --watchers N             fanout: watch connections; pods: nodes, one watch each (default 1000)
  --fanout-rates 10,100    fanout: writes per second, one step each (default 10,100,300; quick: 100)
  --fanout-variants LIST   fanout: any of all,tls,field-selector (default all three)
  --selector-rate N        fanout: writes per second of the field-selector variant; pods: of the
                           watch-by-node step (default 100)
  --memory-objects 10000   memory: cache sizes to measure at (default 10000,50000; quick: 5000)
  --restart-objects N      restart: ConfigMaps of 1 KiB (default 50000; quick: 2000)
  --restart-informers N    restart: informers reconnecting (default 500; quick: 50)
  --mixed-duration SEC     mixed: how long the mixed load runs (default 300; quick: 10)
  --large-objects N        large: ConfigMaps of 1 MiB (default 300; quick: 20)
  --large-concurrency N    large: concurrent lists (default 10; quick: 4)
  --admission-concurrency N  admission: concurrent creates (default 16); each step lasts --duration
  --admission-rounds N     admission: plain/with rounds, alternated (default 2; quick: 1)
  --replica-reads N        replicas: consistent LISTs per replica after a write (default 300; quick: 20)
  --kubeconfig FILE        target the server of a kubeconfig (TLS: its CA, client certificate or
                           token); scenarios that need control of the server (memory, restart,
                           replicas) are skipped, and the raw-etcd baselines need --etcd-servers
  --context NAME           with --kubeconfig: the context (default: current-context)
  --url URL                target a running kapi server (http or https) instead of starting one
  --server-pid PID         with --url: the server's pid, for CPU-seconds per op and RSS
  --workers N              the kapi server the suite starts runs N worker processes (its --workers;
                           default 1); with --no-pin to let them use every core
  --etcd-servers URLS      etcd for the raw baselines (default: start one)
  --no-pin                 do not pin processes to CPUs with taskset
  --raw-etcd-go-clients N  crud: etcd clients of the Go raw-etcd create baseline (packages/bench/go,
                           go.etcd.io/etcd/client/v3), shared by its goroutines (default 1; 0: no Go baseline)
  --http2                  send requests over HTTP/2 to the server's HTTPS port (the suite's own
                           server or an https --url/--kubeconfig); fan-out watchers are unchanged
  --against kapi,kube      side by side: run the suite against each server in turn (kube = kube-apiserver),
                           each on a fresh etcd of its own, both over HTTPS with a bearer token, in
                           alternating order; one report compares them with raw etcd (default kapi)
  --repetitions N          side by side: rounds of every server (default 2)
  --kube-apiserver FILE    side by side: the kube-apiserver binary (default $KAPI_KUBE_APISERVER or
                           ~/.cache/kapi-ref/bin/kube-apiserver, built by
                           e2e/control-plane/build-binaries.sh kube-apiserver); when it is missing the
                           kube-apiserver runs are skipped with a line in the report
  --out DIR                where to write <date>.json and <date>.md (default bench/results)
`;

function positiveNumber(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (value === undefined || !Number.isFinite(n) || n <= 0) throw new Error(`${flag} needs a positive number, got ${value ?? 'nothing'}`);
  return n;
}

/** Parses the arguments after `suite`. Throws an Error with a one-line message on bad input. */
export function parseSuiteOptions(args: readonly string[], defaultOutDir: string): SuiteOptions {
  const quick = args.includes('--quick');
  let concurrency: number[] = quick ? [16] : [1, 16, 64, 256];
  let objectSizes: number[] = [1024, 10240];
  let durationMs = quick ? 2_000 : 4_000;
  let warmupMs = quick ? 1_000 : 3_000;
  let scenarios: ScenarioName[] = scenarioNames.filter((n) => n !== 'representations' && n !== 'client-go');
  let scenariosGiven = false;
  let listSizes: number[] = quick ? [5_000] : [10_000, 50_000];
  let listConcurrency: number[] = quick ? [1] : [1, 10];
  let scenarioDurationMs = quick ? 2_000 : 5_000;
  let selectorRate = 100;
  let restartObjects = quick ? 2_000 : 50_000;
  let restartInformers = quick ? 50 : 500;
  let mixedDurationMs = quick ? 10_000 : 300_000;
  let largeObjects = quick ? 20 : 300;
  let largeConcurrency = quick ? 4 : 10;
  let replicaReads = quick ? 20 : 300;
  let admissionConcurrency = 16;
  let admissionRounds = quick ? 1 : 2;
  let kubeconfig: string | undefined;
  let context: string | undefined;
  let watchers = 1000;
  let fanoutRates: number[] = quick ? [100] : [10, 100, 300];
  let fanoutVariants: FanoutVariantName[] = [...fanoutVariantNames];
  let memoryObjects: number[] = quick ? [5_000] : [10_000, 50_000];
  const list = (flag: string, v: string | undefined) => (v ?? '').split(',').map((x) => Math.floor(positiveNumber(flag, x)));
  let url: string | undefined;
  let serverPid: number | undefined;
  let workers = 1;
  let etcdServers: string[] | undefined;
  let pin = true;
  let rawEtcdGoClients = 1;
  let http2 = false;
  let outDir = defaultOutDir;
  let against: ('kapi' | 'kube-apiserver')[] = ['kapi'];
  let repetitions = 2;
  let kubeApiserver: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string | undefined => inline ?? args[++i];
    switch (flag) {
      case '--quick':
        break;
      case '--concurrency':
        concurrency = (value() ?? '').split(',').map((v) => Math.floor(positiveNumber('--concurrency', v)));
        break;
      case '--object-sizes':
        objectSizes = list('--object-sizes', value());
        break;
      case '--duration':
        durationMs = positiveNumber('--duration', value()) * 1000;
        break;
      case '--warmup':
        warmupMs = Number(value() ?? 'x') * 1000;
        if (!(warmupMs >= 0)) throw new Error('--warmup needs a number of seconds ≥ 0');
        break;
      case '--url':
        url = value();
        if (url === undefined || !/^https?:\/\//.test(url)) throw new Error(`--url needs an http(s) URL, got ${url ?? 'nothing'}`);
        url = url.replace(/\/+$/, '');
        break;
      case '--server-pid':
        serverPid = Math.floor(positiveNumber('--server-pid', value()));
        break;
      case '--workers':
        workers = Math.floor(positiveNumber('--workers', value()));
        break;
      case '--etcd-servers':
        etcdServers = (value() ?? '').split(',').filter((s) => s !== '');
        if (etcdServers.length === 0) throw new Error('--etcd-servers needs a comma-separated list of URLs');
        break;
      case '--scenarios': {
        const names = (value() ?? '').split(',').filter((n) => n !== '');
        const unknown = names.filter((n) => !(scenarioNames as readonly string[]).includes(n));
        if (names.length === 0 || unknown.length > 0) throw new Error(`--scenarios takes ${scenarioNames.join(',')}; got ${unknown.join(',') || 'nothing'}`);
        scenarios = names as ScenarioName[];
        scenariosGiven = true;
        break;
      }
      case '--list-objects':
        listSizes = list('--list-objects', value()).sort((a, b) => a - b);
        break;
      case '--selector-rate':
        selectorRate = Math.floor(positiveNumber('--selector-rate', value()));
        break;
      case '--restart-objects':
        restartObjects = Math.floor(positiveNumber('--restart-objects', value()));
        break;
      case '--restart-informers':
        restartInformers = Math.floor(positiveNumber('--restart-informers', value()));
        break;
      case '--mixed-duration':
        mixedDurationMs = positiveNumber('--mixed-duration', value()) * 1000;
        break;
      case '--large-objects':
        largeObjects = Math.floor(positiveNumber('--large-objects', value()));
        break;
      case '--large-concurrency':
        largeConcurrency = Math.floor(positiveNumber('--large-concurrency', value()));
        break;
      case '--admission-concurrency':
        admissionConcurrency = Math.floor(positiveNumber('--admission-concurrency', value()));
        break;
      case '--admission-rounds':
        admissionRounds = Math.floor(positiveNumber('--admission-rounds', value()));
        break;
      case '--replica-reads':
        replicaReads = Math.floor(positiveNumber('--replica-reads', value()));
        break;
      case '--kubeconfig':
        kubeconfig = value();
        if (kubeconfig === undefined || kubeconfig === '') throw new Error('--kubeconfig needs a file');
        break;
      case '--context':
        context = value();
        if (context === undefined || context === '') throw new Error('--context needs a name');
        break;
      case '--list-concurrency':
        listConcurrency = list('--list-concurrency', value());
        break;
      case '--scenario-duration':
        scenarioDurationMs = positiveNumber('--scenario-duration', value()) * 1000;
        break;
      case '--watchers':
        watchers = Math.floor(positiveNumber('--watchers', value()));
        break;
      case '--fanout-rates':
        fanoutRates = list('--fanout-rates', value());
        break;
      case '--fanout-variants': {
        const names = (value() ?? '').split(',').filter((n) => n !== '');
        const unknown = names.filter((n) => !(fanoutVariantNames as readonly string[]).includes(n));
        if (names.length === 0 || unknown.length > 0) throw new Error(`--fanout-variants takes ${fanoutVariantNames.join(',')}; got ${unknown.join(',') || 'nothing'}`);
        fanoutVariants = names as FanoutVariantName[];
        break;
      }
      case '--memory-objects':
        memoryObjects = list('--memory-objects', value()).sort((a, b) => a - b);
        break;
      case '--no-pin':
        pin = false;
        break;
      case '--raw-etcd-go-clients': {
        const v = value();
        rawEtcdGoClients = v === '0' ? 0 : Math.floor(positiveNumber('--raw-etcd-go-clients', v));
        break;
      }
      case '--http2':
        http2 = true;
        break;
      case '--against': {
        const names = (value() ?? '').split(',').filter((n) => n !== '').map((n) => (n === 'kube' ? 'kube-apiserver' : n));
        const unknown = names.filter((n) => n !== 'kapi' && n !== 'kube-apiserver');
        if (names.length === 0 || unknown.length > 0) throw new Error(`--against takes kapi,kube (or kube-apiserver); got ${unknown.join(',') || 'nothing'}`);
        against = [...new Set(names)] as typeof against;
        break;
      }
      case '--repetitions':
        repetitions = Math.floor(positiveNumber('--repetitions', value()));
        break;
      case '--kube-apiserver':
        kubeApiserver = value();
        if (kubeApiserver === undefined || kubeApiserver === '') throw new Error('--kube-apiserver needs a file');
        break;
      case '--out':
        outDir = value() ?? '';
        if (outDir === '') throw new Error('--out needs a directory');
        break;
      default:
        throw new Error(`unknown option ${arg}`);
    }
  }
  if (kubeconfig !== undefined && url !== undefined) throw new Error('--kubeconfig and --url exclude each other');
  if (context !== undefined && kubeconfig === undefined) throw new Error('--context needs --kubeconfig');
  if (against.includes('kube-apiserver') && !scenariosGiven) scenarios = [...scenarios, 'client-go'];
  if (against.includes('kube-apiserver') && (url !== undefined || kubeconfig !== undefined || etcdServers !== undefined)) {
    throw new Error('--against with kube starts every server and etcd itself: it excludes --url, --kubeconfig and --etcd-servers');
  }
  return Object.freeze({
    quick,
    kubeconfig,
    context,
    listSizes,
    listObjects: listSizes[0]!,
    selectorRate,
    restartObjects,
    restartInformers,
    mixedDurationMs,
    largeObjects,
    largeConcurrency,
    replicaReads,
    admissionConcurrency,
    admissionRounds,
    scenarios,
    concurrency,
    objectSizes,
    durationMs,
    warmupMs,
    url,
    serverPid,
    workers,
    etcdServers,
    pin,
    rawEtcdGoClients,
    http2,
    outDir,
    listConcurrency,
    scenarioDurationMs,
    watchers,
    fanoutRates,
    fanoutVariants,
    memoryObjects,
    against,
    repetitions,
    kubeApiserver,
  });
}
