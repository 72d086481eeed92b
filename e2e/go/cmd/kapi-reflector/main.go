// Command kapi-reflector keeps a client-go SharedIndexInformer (its Reflector over the dynamic
// client, as kubectl wait does) mirror of the ConfigMaps in one namespace and, when told to on
// stdin, compares the mirror with a fresh list. The dynamic client keeps the first build short:
// the typed clientset pulls in every k8s.io/api group (about 3.5 min of cold compile on 2 cores
// instead of about 1.3 min).
//
// It is driven by e2e/src/client-go.test.ts over a line protocol:
//
//	stdout  {"event":"synced","count":N,"resourceVersion":"…"}   once the informer has synced
//	stdin   check                                                 after the driver's churn stopped
//	stdout  {"event":"result","match":true|false,…}               then the process exits (0 on match)
//
// Requests and responses are JSON only (ContentType and AcceptContentTypes forced to
// application/json); any other media type seen on the wire is reported as a violation. Every
// watch stream is checked for strictly increasing resourceVersions, each above the one the
// watch started from. Logs (klog, from the Reflector) go to stderr.
//
// With --trace FILE it appends the exact protocol the Reflector spoke, one JSON object a line:
// every list (options, the answer's resourceVersion and items as name@rv), every watch
// (options) and every event the Reflector took from it, and every HTTP request with a
// sequence number that is also its User-Agent (kapi-reflector/N), so that a replica's request
// log (--v=3) shows which replica answered it. The fault suite checks that trace against
// etcd's own history (e2e/src/faults/reflector-trace.ts).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

type stats struct {
	mu          sync.Mutex
	lists       int
	watches     int
	watchEvents int
	bookmarks   int
	errorEvents []string
	violations  []string
	handler     map[string]int
}

// tracer appends one JSON object a line to the --trace file: every list and watch the
// Reflector makes (options, the answer's resourceVersion, items as name@rv), every event a
// watch delivered, and every HTTP request with its sequence number, which is also sent as the
// User-Agent so the replica that answered it can be found in the replicas' request logs.
type tracer struct {
	mu  sync.Mutex
	out *os.File
	seq int
}

func (t *tracer) record(fields map[string]any) {
	if t == nil || t.out == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	fields["t"] = time.Now().UTC().Format("15:04:05.000")
	b, _ := json.Marshal(fields)
	_, _ = t.out.Write(append(b, '\n'))
}

func (t *tracer) next() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seq++
	return t.seq
}

func (s *stats) violation(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.violations) < 50 {
		s.violations = append(s.violations, fmt.Sprintf(format, args...))
	}
}

func (s *stats) count(field *int) {
	s.mu.Lock()
	*field++
	s.mu.Unlock()
}

// jsonOnly records any request or response that is not JSON.
type jsonOnly struct {
	next  http.RoundTripper
	stats *stats
	trace *tracer
}

func (j jsonOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	if accept := req.Header.Get("Accept"); strings.Contains(accept, "protobuf") {
		j.stats.violation("request %s %s sent Accept %q", req.Method, req.URL.Path, accept)
	}
	if ct := req.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		j.stats.violation("request %s %s sent Content-Type %q", req.Method, req.URL.Path, ct)
	}
	if j.trace != nil && j.trace.out != nil {
		seq := j.trace.next()
		req = req.Clone(req.Context())
		req.Header.Set("User-Agent", fmt.Sprintf("kapi-reflector/%d", seq))
		j.trace.record(map[string]any{"op": "http", "seq": seq, "method": req.Method, "url": req.URL.RequestURI()})
	}
	res, err := j.next.RoundTrip(req)
	if j.trace != nil && j.trace.out != nil {
		if err != nil {
			j.trace.record(map[string]any{"op": "http-error", "ua": req.Header.Get("User-Agent"), "error": err.Error()})
		} else {
			j.trace.record(map[string]any{"op": "http-status", "ua": req.Header.Get("User-Agent"), "status": res.StatusCode})
		}
	}
	if err == nil && res.StatusCode == http.StatusOK {
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			j.stats.violation("response to %s %s has Content-Type %q", req.Method, req.URL.String(), ct)
		}
	}
	return res, err
}

// checkedWatch passes events through and checks that resourceVersions strictly increase.
type checkedWatch struct {
	inner  watch.Interface
	out    chan watch.Event
	stop   chan struct{}
	once   sync.Once
	stats  *stats
	lastRV uint64
	from   string
	trace  *tracer
	id     int
}

func newCheckedWatch(inner watch.Interface, fromRV string, s *stats, trace *tracer, id int) *checkedWatch {
	w := &checkedWatch{inner: inner, out: make(chan watch.Event), stop: make(chan struct{}), stats: s, from: fromRV, trace: trace, id: id}
	if rv, err := strconv.ParseUint(fromRV, 10, 64); err == nil {
		w.lastRV = rv
	}
	go w.run()
	return w
}

func (w *checkedWatch) run() {
	defer close(w.out)
	defer w.trace.record(map[string]any{"op": "watch-end", "watch": w.id})
	for {
		select {
		case <-w.stop:
			return
		case ev, ok := <-w.inner.ResultChan():
			if !ok {
				return
			}
			w.check(ev)
			select {
			case w.out <- ev:
				// Traced once the Reflector took it (it applies what it takes before taking more).
				if meta, err := metaOf(ev.Object); err == nil {
					w.trace.record(map[string]any{"op": "event", "watch": w.id, "type": string(ev.Type), "name": meta.GetName(), "rv": meta.GetResourceVersion()})
				} else {
					w.trace.record(map[string]any{"op": "event", "watch": w.id, "type": string(ev.Type), "object": fmt.Sprintf("%v", ev.Object)})
				}
			case <-w.stop:
				return
			}
		}
	}
}

func (w *checkedWatch) check(ev watch.Event) {
	if ev.Type == watch.Error {
		w.stats.mu.Lock()
		if len(w.stats.errorEvents) < 20 {
			w.stats.errorEvents = append(w.stats.errorEvents, fmt.Sprintf("%v", ev.Object))
		}
		w.stats.mu.Unlock()
		return
	}
	if ev.Type == watch.Bookmark {
		w.stats.count(&w.stats.bookmarks)
	} else {
		w.stats.count(&w.stats.watchEvents)
	}
	meta, err := metaOf(ev.Object)
	if err != nil {
		w.stats.violation("watch from %s: %s event without metadata: %v", w.from, ev.Type, err)
		return
	}
	rv, err := strconv.ParseUint(meta.GetResourceVersion(), 10, 64)
	if err != nil {
		w.stats.violation("watch from %s: %s event with resourceVersion %q", w.from, ev.Type, meta.GetResourceVersion())
		return
	}
	// A bookmark may repeat the last revision; an object event must move forward.
	if rv < w.lastRV || (rv == w.lastRV && ev.Type != watch.Bookmark) {
		w.stats.violation("watch from %s: %s %s at %d after %d", w.from, ev.Type, meta.GetName(), rv, w.lastRV)
	}
	if rv > w.lastRV {
		w.lastRV = rv
	}
}

func metaOf(obj runtime.Object) (metav1.Object, error) {
	if obj == nil {
		return nil, fmt.Errorf("nil object")
	}
	accessor, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no ObjectMeta", obj)
	}
	return accessor, nil
}

func (w *checkedWatch) Stop() {
	w.once.Do(func() {
		close(w.stop)
		w.inner.Stop()
	})
}

func (w *checkedWatch) ResultChan() <-chan watch.Event { return w.out }

func emit(v any) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "kapi-reflector: "+format+"\n", args...)
	os.Exit(2)
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the server")
	namespace := flag.String("namespace", "default", "namespace whose ConfigMaps are mirrored")
	watchTimeout := flag.Int64("watch-timeout-seconds", 0, "if > 0, replaces the Reflector's timeoutSeconds (300–600 s) so watches end and restart sooner")
	checkTimeout := flag.Duration("check-timeout", 30*time.Second, "how long `check` waits for the mirror to match the fresh list")
	syncTimeout := flag.Duration("sync-timeout", 60*time.Second, "how long to wait for the initial sync")
	traceFile := flag.String("trace", "", "if set, append a JSON line per list, watch, event and HTTP request to this file")
	flag.Parse()

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail("kubeconfig: %v", err)
	}
	s := &stats{handler: map[string]int{}, violations: []string{}, errorEvents: []string{}}
	trace := &tracer{}
	if *traceFile != "" {
		f, err := os.OpenFile(*traceFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fail("trace: %v", err)
		}
		trace.out = f
	}
	cfg.ContentType = "application/json"
	cfg.AcceptContentTypes = "application/json"
	cfg.QPS = 1000
	cfg.Burst = 1000
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return jsonOnly{next: rt, stats: s, trace: trace} })
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		fail("client: %v", err)
	}
	client := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace(*namespace)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lw := &cache.ListWatch{
		ListFunc: func(options metav1.ListOptions) (runtime.Object, error) {
			s.count(&s.lists)
			list, err := client.List(ctx, options)
			entry := map[string]any{"op": "list", "rv": options.ResourceVersion, "match": string(options.ResourceVersionMatch), "limit": options.Limit, "continue": options.Continue}
			if err != nil {
				entry["error"] = err.Error()
			} else {
				items := make([]string, 0, len(list.Items))
				for i := range list.Items {
					items = append(items, list.Items[i].GetName()+"@"+list.Items[i].GetResourceVersion())
				}
				entry["listRV"] = list.GetResourceVersion()
				entry["items"] = items
			}
			trace.record(entry)
			return list, err
		},
		WatchFunc: func(options metav1.ListOptions) (watch.Interface, error) {
			s.count(&s.watches)
			if *watchTimeout > 0 {
				t := *watchTimeout
				options.TimeoutSeconds = &t
			}
			s.mu.Lock()
			id := s.watches
			s.mu.Unlock()
			w, err := client.Watch(ctx, options)
			entry := map[string]any{"op": "watch", "watch": id, "rv": options.ResourceVersion, "bookmarks": options.AllowWatchBookmarks}
			if err != nil {
				entry["error"] = err.Error()
				trace.record(entry)
				return nil, err
			}
			trace.record(entry)
			return newCheckedWatch(w, options.ResourceVersion, s, trace, id), nil
		},
	}
	informer := cache.NewSharedIndexInformer(lw, &unstructured.Unstructured{}, 0, cache.Indexers{})
	checkUpdate := func(oldObj, newObj any) {
		o, n := oldObj.(*unstructured.Unstructured), newObj.(*unstructured.Unstructured)
		s.mu.Lock()
		s.handler["update"]++
		s.mu.Unlock()
		or, _ := strconv.ParseUint(o.GetResourceVersion(), 10, 64)
		nr, _ := strconv.ParseUint(n.GetResourceVersion(), 10, 64)
		if nr < or {
			s.violation("update of %s went back from %d to %d", n.GetName(), or, nr)
		}
	}
	_, err = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { s.mu.Lock(); s.handler["add"]++; s.mu.Unlock() },
		UpdateFunc: checkUpdate,
		DeleteFunc: func(any) { s.mu.Lock(); s.handler["delete"]++; s.mu.Unlock() },
	})
	if err != nil {
		fail("handler: %v", err)
	}
	go informer.Run(ctx.Done())

	syncCtx, syncCancel := context.WithTimeout(ctx, *syncTimeout)
	if !cache.WaitForCacheSync(syncCtx.Done(), informer.HasSynced) {
		fail("informer did not sync within %v", *syncTimeout)
	}
	syncCancel()
	emit(map[string]any{"event": "synced", "count": len(informer.GetStore().ListKeys()), "resourceVersion": informer.LastSyncResourceVersion()})

	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if strings.TrimSpace(in.Text()) != "check" {
			continue
		}
		os.Exit(check(ctx, client, informer, *checkTimeout, s))
	}
	fail("stdin closed before `check`")
}

// check lists the namespace (resourceVersion unset: the most recent state), then waits up to
// `timeout` for the informer's store to hold exactly those names at exactly those
// resourceVersions. Prints the result; returns the exit code.
func check(ctx context.Context, client dynamic.ResourceInterface, informer cache.SharedIndexInformer, timeout time.Duration, s *stats) int {
	list, err := client.List(ctx, metav1.ListOptions{})
	if err != nil {
		fail("fresh list: %v", err)
	}
	want := map[string]string{}
	for i := range list.Items {
		want[list.Items[i].GetName()] = list.Items[i].GetResourceVersion()
	}
	mirror := func() map[string]string {
		got := map[string]string{}
		for _, obj := range informer.GetStore().List() {
			cm := obj.(*unstructured.Unstructured)
			got[cm.GetName()] = cm.GetResourceVersion()
		}
		return got
	}
	started := time.Now()
	deadline := started.Add(timeout)
	diff := []string{}
	for {
		diff = compare(want, mirror())
		if len(diff) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(diff) > 20 {
		diff = append(diff[:20], fmt.Sprintf("… %d more", len(diff)-20))
	}
	match := len(diff) == 0 && len(s.violations) == 0
	emit(map[string]any{
		"event": "result", "match": match, "listCount": len(want), "listResourceVersion": list.GetResourceVersion(),
		"lastSyncResourceVersion": informer.LastSyncResourceVersion(), "diff": diff, "violations": s.violations,
		"lists": s.lists, "watches": s.watches, "watchEvents": s.watchEvents, "bookmarks": s.bookmarks,
		"errorEvents": s.errorEvents, "handlerCalls": s.handler, "convergedAfterSeconds": time.Since(started).Round(100 * time.Millisecond).Seconds(),
	})
	if match {
		return 0
	}
	return 1
}

func compare(want, got map[string]string) []string {
	diff := []string{}
	for name, rv := range want {
		if g, ok := got[name]; !ok {
			diff = append(diff, fmt.Sprintf("missing %s@%s", name, rv))
		} else if g != rv {
			diff = append(diff, fmt.Sprintf("stale %s@%s (want %s)", name, g, rv))
		}
	}
	for name, rv := range got {
		if _, ok := want[name]; !ok {
			diff = append(diff, fmt.Sprintf("extra %s@%s", name, rv))
		}
	}
	sort.Strings(diff)
	return diff
}
