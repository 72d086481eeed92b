import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { goFlameStacks, goStageOf, summarizeGoProfile } from './go-profile-stages.js';
import { decodePprof, type PprofFrame as GoFrame } from '@kapi/machinery';
import { Stage } from './profile-stages.js';

/** Frames from `function@file`, innermost first, as pprof lists them. */
const stack = (...frames: string[]): GoFrame[] =>
  frames.map((f) => {
    const [fn, file] = f.split('@@');
    return { function: fn!, file: file ?? '', line: 1 };
  });

const createHandler = 'k8s.io/apiserver/pkg/endpoints/handlers.CreateResource.createHandler.func1@@k8s.io/apiserver@v0.32.13/pkg/endpoints/handlers/create.go';
const storeCreate = 'k8s.io/apiserver/pkg/storage/etcd3.(*store).Create@@k8s.io/apiserver@v0.32.13/pkg/storage/etcd3/store.go';
const grpcInvoke = 'google.golang.org/grpc.invoke@@google.golang.org/grpc@v1.65.0/call.go';
const tlsWrite = 'crypto/tls.(*Conn).Write@@crypto/tls/conn.go';
const netWrite = 'net.(*conn).Write@@net/net.go';
const syscallWrite = 'syscall.write@@syscall/zsyscall_linux_amd64.go';

void test('a Go stack goes to its innermost named stage; generic libraries count for their caller', () => {
  assert.equal(goStageOf(stack('encoding/json.Marshal@@encoding/json/encode.go', 'reflect.Value.Call@@reflect/value.go', createHandler)), Stage.apiserver);
  assert.equal(goStageOf(stack('k8s.io/api/core/v1.(*ConfigMap).Unmarshal@@k8s.io/api@v0.32.13/core/v1/generated.pb.go', storeCreate)), Stage.protobuf);
  assert.equal(goStageOf(stack('sigs.k8s.io/structured-merge-diff/v4/typed.(*compareWalker).doMap@@sigs.k8s.io/structured-merge-diff/v4@v4.4.2/typed/compare.go', createHandler)), Stage.managedFields);
  assert.equal(goStageOf(stack('k8s.io/apiserver/pkg/storage/cacher.(*Cacher).Get@@k8s.io/apiserver@v0.32.13/pkg/storage/cacher/cacher.go')), Stage.watchCache);
  assert.equal(goStageOf(stack(storeCreate, createHandler)), Stage.storage);
  assert.equal(goStageOf(stack('k8s.io/kubernetes/pkg/apis/core/v1.Convert_v1_ConfigMap_To_core_ConfigMap@@k8s.io/kubernetes/pkg/apis/core/v1/zz_generated.conversion.go', createHandler)), Stage.conversion);
  assert.equal(goStageOf(stack('k8s.io/apiserver/pkg/endpoints/filters.withAuthentication.func1@@k8s.io/apiserver@v0.32.13/pkg/endpoints/filters/authentication.go')), Stage.authn);
  assert.equal(goStageOf(stack('k8s.io/apiserver/pkg/endpoints/filters.WithAuditInit.func1@@k8s.io/apiserver@v0.32.13/pkg/endpoints/filters/audit_init.go')), Stage.audit);
  assert.equal(goStageOf(stack('k8s.io/apiserver/pkg/endpoints/filters.WithRequestInfo.func1@@k8s.io/apiserver@v0.32.13/pkg/endpoints/filters/requestinfo.go')), Stage.filters);
  assert.equal(goStageOf(stack('github.com/prometheus/client_golang/prometheus.(*histogram).Observe@@github.com/prometheus/client_golang@v1.19.1/prometheus/histogram.go', createHandler)), Stage.filters);
  assert.equal(goStageOf(stack('k8s.io/apiserver/pkg/admission.NewAttributesRecord@@k8s.io/apiserver@v0.32.13/pkg/admission/attributes.go', createHandler)), Stage.admission);
  // Handler adapters of net/http are no HTTP/1.1 work: the filter that runs in them is named.
  assert.equal(goStageOf(stack('net/http.HandlerFunc.ServeHTTP@@net/http/server.go', 'k8s.io/apiserver/pkg/server/filters.WithPanicRecovery.func1@@k8s.io/apiserver@v0.32.13/pkg/server/filters/wrap.go')), Stage.filters);
  assert.equal(goStageOf(stack('context.parentCancelCtx@@context/context.go')), Stage.other);
});

void test('transport layers count as the outermost of them, and as the etcd client under it', () => {
  const http2Write = 'net/http.(*http2serverConn).writeFrameAsync@@net/http/h2_bundle.go';
  assert.equal(goStageOf(stack(syscallWrite, netWrite, tlsWrite, 'bufio.(*Writer).Flush@@bufio/bufio.go', http2Write)), Stage.http2);
  assert.equal(goStageOf(stack(syscallWrite, netWrite, tlsWrite, 'golang.org/x/net/http2.(*Framer).WriteData@@golang.org/x/net@v0.30.0/http2/frame.go', grpcInvoke, storeCreate)), Stage.etcdClient);
  assert.equal(goStageOf(stack('crypto/tls.(*Conn).serverHandshake@@crypto/tls/handshake_server.go', 'net/http.(*conn).serve@@net/http/server.go')), Stage.tls);
  assert.equal(goStageOf(stack('net/http.(*conn).readRequest@@net/http/server.go', 'net/http.(*conn).serve@@net/http/server.go')), Stage.http1);
  assert.equal(goStageOf(stack(syscallWrite, netWrite)), Stage.sockets);
});

void test("Go's runtime: the collector is GC, the allocator allocation, stack growth and the runtime alone its scheduler", () => {
  assert.equal(goStageOf(stack('runtime.scanobject@@runtime/mgcmark.go', 'runtime.gcDrain@@runtime/mgcmark.go', 'runtime.gcBgMarkWorker@@runtime/mgc.go')), Stage.gc);
  const malloc = 'runtime.mallocgc@@runtime/malloc.go';
  assert.equal(goStageOf(stack('runtime.memclrNoHeapPointers@@runtime/memclr_amd64.s', malloc, 'runtime.newobject@@runtime/malloc.go', storeCreate)), Stage.allocation);
  assert.equal(goStageOf(stack('runtime.scanobject@@runtime/mgcmark.go', 'runtime.gcAssistAlloc@@runtime/mgcmark.go', malloc, storeCreate)), Stage.gc);
  assert.equal(goStageOf(stack('runtime.futex@@runtime/sys_linux_amd64.s', 'runtime.findRunnable@@runtime/proc.go', 'runtime.schedule@@runtime/proc.go', 'runtime.mcall@@runtime/asm_amd64.s')), Stage.scheduler);
  assert.equal(goStageOf(stack('runtime.adjustframe@@runtime/stack.go', 'runtime.copystack@@runtime/stack.go', 'runtime.newstack@@runtime/stack.go', 'runtime.morestack@@runtime/asm_amd64.s', storeCreate)), Stage.scheduler);
  // Runtime helpers other than the allocator, the collector and stack growth count for their caller.
  assert.equal(goStageOf(stack('runtime.memmove@@runtime/memmove_amd64.s', storeCreate)), Stage.storage);
});

void test('the kube-apiserver capture: every sample in one stage, stages add up to the busy time', () => {
  const profile = decodePprof(readFileSync(new URL('../testdata/kube-apiserver-create.pprof.gz', import.meta.url)));
  const summary = summarizeGoProfile(profile);
  assert.equal(summary.busyMs, 180);
  assert.equal(
    summary.stages.reduce((t, s) => t + s.ms, 0),
    180,
  );
  const ms = Object.fromEntries(summary.stages.map((s) => [s.stage, s.ms]));
  // Read off the capture's stacks (`go tool pprof -traces`): the etcd Txn of a create, the
  // gRPC transport's frame reads and a watch response's unmarshalling are the etcd client's.
  assert.equal(ms[Stage.etcdClient], 40);
  assert.equal(ms[Stage.managedFields], 30);
  assert.equal(ms[Stage.watchCache], 10);
  assert.equal(summary.topFunctions.reduce((t, f) => t + f.ms, 0), 180);
  const stacks = goFlameStacks(profile);
  assert.equal(stacks.length, 18);
  assert.equal(stacks.reduce((t, s) => t + s.weight, 0), 180);
  // Outermost first, names without their package directory.
  assert.equal(stacks[0]!.frames.at(-1)!.name, 'context.parentCancelCtx');
  assert.equal(stacks[0]!.frames[0]!.name, 'finisher.finishRequest.func1');
});
