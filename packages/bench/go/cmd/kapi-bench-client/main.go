// Command kapi-bench-client is kapi-bench's neutral load generator: client-go's typed clientset
// with protobuf (as kube's own components talk to the API server) doing one kind of work per run
// against one server, so that side-by-side figures do not depend on kapi-bench's own client.
//
//	--mode create   ConfigMap creates (unique names) from --concurrency goroutines
//	--mode get      GETs of --objects existing ConfigMaps
//	--mode update   updates (PUT) of ConfigMaps, one per goroutine, each from the object its last update returned
//	--mode list     LISTs of --objects ConfigMaps (--rv "" most recent, "0" from the cache)
//	--mode watch    --watchers watches on one namespace; one writer updates a ConfigMap at --rate/s;
//	                delivery = event arrival − the writer's acknowledgement (0 when earlier)
//
// Setup (namespace, objects) comes first; then it prints {"event":"measuring"}, measures for
// --duration after --warmup, and prints {"event":"result",...} with ops/s, latency quantiles in
// ms, errors and (watch) deliveries. Exit status 0 unless setup failed.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"

	"kapi-bench-go/internal/loadgen"
)

type result struct {
	Event        string   `json:"event"`
	Mode         string   `json:"mode"`
	Concurrency  int      `json:"concurrency"`
	Ops          int64    `json:"ops"`
	Errors       int64    `json:"errors"`
	ErrorSamples []string `json:"errorSamples"`
	Seconds      float64  `json:"seconds"`
	OpsPerSecond float64  `json:"opsPerSecond"`
	P50          float64  `json:"p50"`
	P99          float64  `json:"p99"`
	Max          float64  `json:"max"`
	Items        int      `json:"items,omitempty"`
	Expected     int64    `json:"expectedDeliveries,omitempty"`
	Delivered    int64    `json:"deliveries,omitempty"`
}

func emit(v any) { loadgen.Emit(v) }

func fail(format string, args ...any) { loadgen.Fail("kapi-bench-client", format, args...) }

// quantiles of the latencies (ms): p50, p99 and the largest; -1 each when there are none.
func quantiles(ms []float64) (p50, p99, max float64) {
	sort.Float64s(ms)
	return loadgen.Quantile(ms, 0.5), loadgen.Quantile(ms, 0.99), loadgen.Quantile(ms, 1)
}

func data(size int) map[string]string {
	return map[string]string{"data": strings.Repeat("x", size)}
}

func main() {
	server := flag.String("server", "", "server URL (https)")
	token := flag.String("token", "", "bearer token")
	mode := flag.String("mode", "create", "create, get, update, list or watch")
	concurrency := flag.Int("concurrency", 16, "goroutines (create, get, list)")
	duration := flag.Duration("duration", 5*time.Second, "measured time")
	warmup := flag.Duration("warmup", time.Second, "unmeasured time before (create, get, list)")
	namespace := flag.String("namespace", "kapi-bench-client-go", "namespace")
	objects := flag.Int("objects", 1000, "ConfigMaps to GET or LIST")
	size := flag.Int("size", 1024, "bytes of data per ConfigMap")
	rv := flag.String("rv", "", "list: resourceVersion (\"\" most recent, \"0\" any)")
	watchers := flag.Int("watchers", 100, "watch: watches")
	rate := flag.Float64("rate", 50, "watch: writes per second")
	codec := flag.String("codec", "protobuf", "protobuf or json, both ways (HTTP/1.1 instead of HTTP/2: GODEBUG=http2client=0)")
	clients := flag.Int("clients", 1, "create, get, list: independent clientsets (one transport, so one HTTP/2 connection, each), the operations spread over them in turn")
	flag.Parse()
	if *clients < 1 {
		fail("--clients must be at least 1")
	}

	cfg := &rest.Config{
		Host:            *server,
		BearerToken:     *token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             1e6,
		Burst:           1e6,
		UserAgent:       "kapi-bench-client",
	}
	// Protobuf both ways by default, as kube's own components are configured (--kube-api-content-type).
	switch *codec {
	case "protobuf":
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
		cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	case "json":
		cfg.ContentType = "application/json"
		cfg.AcceptContentTypes = "application/json"
	default:
		fail("--codec: %q is neither protobuf nor json", *codec)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fail("%v", err)
	}
	ctx := context.Background()
	ns := *namespace
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		fail("namespace: %v", err)
	}
	cms := cs.CoreV1().ConfigMaps(ns)
	// Operation i goes to clientset i mod --clients: with HTTP/2 each clientset is one connection,
	// as each of several separate programs (controllers, kubelets) would hold its own.
	spread := []corev1client.ConfigMapInterface{cms}
	for c := 1; c < *clients; c++ {
		own := rest.CopyConfig(cfg)
		// client-go shares one transport among configs with equal TLS settings unless a dialer is set.
		own.Dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
		other, err := kubernetes.NewForConfig(own)
		if err != nil {
			fail("%v", err)
		}
		spread = append(spread, other.CoreV1().ConfigMaps(ns))
	}
	pick := func(i int64) corev1client.ConfigMapInterface { return spread[i%int64(len(spread))] }
	ensure := func(prefix string, n int) {
		var next int64 = -1
		var wg sync.WaitGroup
		errs := make(chan error, 32)
		for w := 0; w < 32; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := atomic.AddInt64(&next, 1)
					if i >= int64(n) {
						return
					}
					_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: prefix + strconv.FormatInt(i, 10)}, Data: data(*size)}, metav1.CreateOptions{})
					if err != nil && !apierrors.IsAlreadyExists(err) {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			fail("setup: %v", err)
		}
	}

	res := result{Event: "result", Mode: *mode, Concurrency: *concurrency, ErrorSamples: []string{}}
	rec := loadgen.NewRecorder(*concurrency)
	var seq atomic.Int64
	var op func(worker int, i int64) error
	switch *mode {
	case "create":
		prefix := fmt.Sprintf("c-%d-", time.Now().UnixNano())
		op = func(_ int, i int64) error {
			_, err := pick(i).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: prefix + strconv.FormatInt(i, 10)}, Data: data(*size)}, metav1.CreateOptions{})
			return err
		}
	case "get":
		ensure("g-", *objects)
		op = func(_ int, i int64) error {
			_, err := pick(i).Get(ctx, "g-"+strconv.FormatInt(i%int64(*objects), 10), metav1.GetOptions{})
			return err
		}
	case "update":
		// Each goroutine updates its own object, so no update conflicts with another.
		owned := make([]*corev1.ConfigMap, *concurrency)
		for w := range owned {
			name := "u-" + strconv.Itoa(w)
			cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data(*size)}, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				cm, err = cms.Get(ctx, name, metav1.GetOptions{})
			}
			if err != nil {
				fail("update setup: %v", err)
			}
			owned[w] = cm
		}
		op = func(w int, i int64) error {
			cm := owned[w].DeepCopy()
			cm.Data = data(*size)
			cm.Data["n"] = strconv.FormatInt(i, 10)
			out, err := pick(i).Update(ctx, cm, metav1.UpdateOptions{})
			if err != nil {
				return err
			}
			owned[w] = out
			return nil
		}
	case "list":
		ensure("l-", *objects)
		op = func(_ int, i int64) error {
			l, err := pick(i).List(ctx, metav1.ListOptions{ResourceVersion: *rv, LabelSelector: ""})
			if err == nil && len(l.Items) < *objects {
				return fmt.Errorf("list returned %d items, want ≥ %d", len(l.Items), *objects)
			}
			res.Items = len(l.Items)
			return err
		}
	case "watch":
		runWatch(ctx, cms, *watchers, *rate, *duration, *size, &res)
		emit(res)
		return
	default:
		fail("unknown --mode %s", *mode)
	}
	loadgen.ClosedLoop(*concurrency, *warmup, &seq, op, nil)
	emit(map[string]string{"event": "measuring"})
	res.Seconds = loadgen.ClosedLoop(*concurrency, *duration, &seq, op, rec)
	lat := rec.Latencies()
	res.Ops = int64(len(lat))
	res.Errors = rec.Errors()
	res.ErrorSamples = append(res.ErrorSamples, rec.Samples()...)
	res.OpsPerSecond = float64(res.Ops) / res.Seconds
	res.P50, res.P99, res.Max = quantiles(lat)
	emit(res)
}

type arrival struct {
	rv int64
	at time.Time
}

func runWatch(ctx context.Context, cms interface {
	Create(context.Context, *corev1.ConfigMap, metav1.CreateOptions) (*corev1.ConfigMap, error)
	Get(context.Context, string, metav1.GetOptions) (*corev1.ConfigMap, error)
	Update(context.Context, *corev1.ConfigMap, metav1.UpdateOptions) (*corev1.ConfigMap, error)
	Watch(context.Context, metav1.ListOptions) (watch.Interface, error)
}, watchers int, rate float64, duration time.Duration, size int, res *result) {
	// Writers each update their own ConfigMap on a fixed schedule (rate/writers a second), so the
	// rate holds while one update takes longer than 1/rate; every watch sees every writer's object.
	const writers = 8
	const label = "kapi-bench-client-watched"
	objects := make([]*corev1.ConfigMap, writers)
	var startRV int64
	for w := range objects {
		name := fmt.Sprintf("watched-%d", w)
		cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{label: "true"}}, Data: data(size)}, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			cm, err = cms.Get(ctx, name, metav1.GetOptions{})
		}
		if err != nil {
			fail("watch setup: %v", err)
		}
		objects[w] = cm
		if n, _ := strconv.ParseInt(cm.ResourceVersion, 10, 64); n > startRV {
			startRV = n
		}
	}
	res.Concurrency = watchers
	arrivals := make([][]arrival, watchers)
	var mu sync.Mutex
	var wg sync.WaitGroup
	wctx, cancel := context.WithCancel(ctx)
	var terminated int64
	for w := 0; w < watchers; w++ {
		wi, err := cms.Watch(wctx, metav1.ListOptions{ResourceVersion: strconv.FormatInt(startRV, 10), LabelSelector: label + "=true"})
		if err != nil {
			fail("watch %d: %v", w, err)
		}
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for ev := range wi.ResultChan() {
				at := time.Now()
				if ev.Type == watch.Bookmark || ev.Type == watch.Error {
					continue
				}
				o, ok := ev.Object.(*corev1.ConfigMap)
				if !ok {
					continue
				}
				n, _ := strconv.ParseInt(o.ResourceVersion, 10, 64)
				mu.Lock()
				arrivals[w] = append(arrivals[w], arrival{n, at})
				mu.Unlock()
			}
			if wctx.Err() == nil {
				atomic.AddInt64(&terminated, 1)
			}
		}(w)
	}
	emit(map[string]string{"event": "measuring"})
	acks := map[int64]time.Time{}
	rec := loadgen.NewRecorder(writers)
	started := time.Now()
	interval := time.Duration(float64(time.Second) * writers / rate)
	var writersDone sync.WaitGroup
	for w := range objects {
		writersDone.Add(1)
		go func(w int) {
			defer writersDone.Done()
			cm := objects[w]
			offset := time.Duration(w) * interval / writers
			for i := 0; ; i++ {
				due := started.Add(offset + time.Duration(i)*interval)
				if due.Sub(started) >= duration {
					return
				}
				if d := time.Until(due); d > 0 {
					time.Sleep(d)
				}
				cm.Data = map[string]string{"data": strings.Repeat("x", size), "seq": strconv.Itoa(i)}
				t0 := time.Now()
				updated, err := cms.Update(ctx, cm, metav1.UpdateOptions{})
				rec.Done(w, t0, err)
				if err != nil {
					if latest, gerr := cms.Get(ctx, cm.Name, metav1.GetOptions{}); gerr == nil {
						cm = latest
					}
					continue
				}
				n, _ := strconv.ParseInt(updated.ResourceVersion, 10, 64)
				mu.Lock()
				acks[n] = time.Now()
				mu.Unlock()
				cm = updated
			}
		}(w)
	}
	writersDone.Wait()
	res.Seconds = time.Since(started).Seconds()
	res.Ops = int64(len(rec.Latencies()))
	res.Errors = rec.Errors()
	res.ErrorSamples = append(res.ErrorSamples, rec.Samples()...)
	res.OpsPerSecond = float64(res.Ops) / res.Seconds
	res.Expected = res.Ops * int64(watchers)
	deadline := time.Now().Add(5 * time.Second)
	count := func() int64 {
		mu.Lock()
		defer mu.Unlock()
		var n int64
		for _, a := range arrivals {
			for _, e := range a {
				if _, ok := acks[e.rv]; ok {
					n++
				}
			}
		}
		return n
	}
	for time.Now().Before(deadline) && count() < res.Expected {
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	var lat []float64
	for _, a := range arrivals {
		for _, e := range a {
			if ack, ok := acks[e.rv]; ok {
				d := float64(e.at.Sub(ack).Microseconds()) / 1000
				if d < 0 {
					d = 0
				}
				lat = append(lat, d)
			}
		}
	}
	res.Delivered = int64(len(lat))
	res.Errors += res.Expected - res.Delivered + terminated
	if res.Expected > res.Delivered && len(res.ErrorSamples) < 5 {
		res.ErrorSamples = append(res.ErrorSamples, fmt.Sprintf("%d of %d deliveries missing", res.Expected-res.Delivered, res.Expected))
	}
	res.P50, res.P99, res.Max = quantiles(lat)
}
