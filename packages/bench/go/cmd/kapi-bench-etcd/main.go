// Command kapi-bench-etcd is kapi-bench's raw-etcd baseline in Go: the transactions a kapi create
// sends to etcd, from go.etcd.io/etcd/client/v3 (the client kube-apiserver links), so that
// "creates/s ÷ raw etcd create-transactions/s" compares kapi with the fastest etcd client rather
// than with a Node one.
//
//	--mode create-txn   Txn If(mod_revision(key) == 0) Then(Put(key, value)) Else(Get(key)),
//	                    a fresh key each time; a transaction that takes the Else branch is an error
//	--mode txn-put      Txn Then(Put(key, value)) without a compare, as etcd's own
//	                    "benchmark txn-put" sends (to compare the two tools like for like)
//	--mode put          a plain Put of a fresh key
//
// --concurrency goroutines share --clients clients (goroutine i uses client i mod clients; each
// client is one gRPC connection on which its requests multiplex). Keys are
// <prefix><run id>/<n>, values --size bytes. It runs --warmup unmeasured, prints
// {"event":"measuring"}, measures for --duration and prints {"event":"result",...} with ops/s,
// latency quantiles in ms and errors. Exit status 0 unless a client could not be created.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

type result struct {
	Event        string   `json:"event"`
	Mode         string   `json:"mode"`
	Concurrency  int      `json:"concurrency"`
	Clients      int      `json:"clients"`
	ValueBytes   int      `json:"valueBytes"`
	Ops          int64    `json:"ops"`
	Errors       int64    `json:"errors"`
	ErrorSamples []string `json:"errorSamples"`
	Seconds      float64  `json:"seconds"`
	OpsPerSecond float64  `json:"opsPerSecond"`
	P50          float64  `json:"p50"`
	P90          float64  `json:"p90"`
	P99          float64  `json:"p99"`
	Max          float64  `json:"max"`
	Mean         float64  `json:"mean"`
	// CPUSeconds is what this program used (user + system) while measuring.
	CPUSeconds float64 `json:"cpuSeconds"`
	// KeyPrefix is where the keys went, for the caller to delete.
	KeyPrefix string `json:"keyPrefix"`
}

func emit(v any) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "kapi-bench-etcd: "+format+"\n", args...)
	os.Exit(1)
}

// summarize fills the latency fields of res (nearest rank; -1 without samples).
func summarize(ms []float64, res *result) {
	if len(ms) == 0 {
		res.P50, res.P90, res.P99, res.Max, res.Mean = -1, -1, -1, -1, -1
		return
	}
	sort.Float64s(ms)
	at := func(q float64) float64 {
		i := int(q*float64(len(ms))+0.999999) - 1
		if i < 0 {
			i = 0
		}
		return ms[i]
	}
	var sum float64
	for _, v := range ms {
		sum += v
	}
	res.P50, res.P90, res.P99, res.Max, res.Mean = at(0.5), at(0.9), at(0.99), ms[len(ms)-1], sum/float64(len(ms))
}

// cpuSeconds is the user + system CPU this process has used so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// recorder keeps one latency slice per goroutine, so that recording takes no lock.
type recorder struct {
	lat     [][]float64
	errors  atomic.Int64
	mu      sync.Mutex
	samples []string
}

func (r *recorder) done(worker int, start time.Time, err error) {
	if err != nil {
		r.errors.Add(1)
		r.mu.Lock()
		if len(r.samples) < 5 {
			r.samples = append(r.samples, err.Error())
		}
		r.mu.Unlock()
		return
	}
	r.lat[worker] = append(r.lat[worker], float64(time.Since(start).Microseconds())/1000)
}

// closedLoop runs op from n goroutines until d has passed; seq numbers the calls uniquely.
// With a recorder, it returns the measured seconds.
func closedLoop(n int, d time.Duration, seq *atomic.Int64, op func(worker int, i int64) error, rec *recorder) float64 {
	deadline := time.Now().Add(d)
	started := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for time.Now().Before(deadline) {
				i := seq.Add(1)
				t0 := time.Now()
				err := op(w, i)
				if rec != nil {
					rec.done(w, t0, err)
				}
			}
		}(w)
	}
	wg.Wait()
	return time.Since(started).Seconds()
}

func main() {
	endpoints := flag.String("endpoints", "http://127.0.0.1:2379", "comma-separated etcd endpoints")
	mode := flag.String("mode", "create-txn", "create-txn, txn-put or put")
	concurrency := flag.Int("concurrency", 16, "goroutines")
	clients := flag.Int("clients", 1, "clients (gRPC connections) the goroutines share")
	duration := flag.Duration("duration", 5*time.Second, "measured time")
	warmup := flag.Duration("warmup", time.Second, "unmeasured time before")
	size := flag.Int("size", 1100, "bytes per value")
	prefix := flag.String("prefix", "/kapi-bench-raw/go/", "key prefix (a run id and / follow)")
	timeout := flag.Duration("timeout", 10*time.Second, "per-request timeout")
	flag.Parse()
	if *concurrency < 1 || *clients < 1 || *size < 0 {
		fail("--concurrency and --clients must be ≥ 1, --size ≥ 0")
	}
	if *mode != "create-txn" && *mode != "txn-put" && *mode != "put" {
		fail("unknown --mode %s (create-txn, txn-put or put)", *mode)
	}

	kvs := make([]*clientv3.Client, *clients)
	for i := range kvs {
		c, err := clientv3.New(clientv3.Config{
			Endpoints:   strings.Split(*endpoints, ","),
			DialTimeout: 10 * time.Second,
			Logger:      zap.NewNop(),
		})
		if err != nil {
			fail("client: %v", err)
		}
		defer c.Close()
		kvs[i] = c
	}
	ctx := context.Background()
	// One request before the clock starts, so that every connection is up.
	for _, c := range kvs {
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := c.Get(sctx, "/kapi-bench-raw/ping")
		cancel()
		if err != nil {
			fail("etcd at %s: %v", *endpoints, err)
		}
	}

	keyPrefix := *prefix + strconv.FormatInt(time.Now().UnixNano(), 36) + "/"
	value := strings.Repeat("x", *size)
	var op func(worker int, i int64) error
	switch *mode {
	case "create-txn":
		op = func(worker int, i int64) error {
			key := keyPrefix + strconv.FormatInt(i, 10)
			rctx, cancel := context.WithTimeout(ctx, *timeout)
			defer cancel()
			resp, err := kvs[worker%len(kvs)].Txn(rctx).
				If(clientv3.Compare(clientv3.ModRevision(key), "=", 0)).
				Then(clientv3.OpPut(key, value)).
				Else(clientv3.OpGet(key)).
				Commit()
			if err == nil && !resp.Succeeded {
				err = fmt.Errorf("key exists: %s", key)
			}
			return err
		}
	case "txn-put":
		op = func(worker int, i int64) error {
			rctx, cancel := context.WithTimeout(ctx, *timeout)
			defer cancel()
			_, err := kvs[worker%len(kvs)].Txn(rctx).Then(clientv3.OpPut(keyPrefix+strconv.FormatInt(i, 10), value)).Commit()
			return err
		}
	case "put":
		op = func(worker int, i int64) error {
			rctx, cancel := context.WithTimeout(ctx, *timeout)
			defer cancel()
			_, err := kvs[worker%len(kvs)].Put(rctx, keyPrefix+strconv.FormatInt(i, 10), value)
			return err
		}
	}

	var seq atomic.Int64
	if *warmup > 0 {
		closedLoop(*concurrency, *warmup, &seq, op, nil)
	}
	emit(map[string]string{"event": "measuring"})
	rec := &recorder{lat: make([][]float64, *concurrency)}
	res := result{Event: "result", Mode: *mode, Concurrency: *concurrency, Clients: *clients, ValueBytes: *size, ErrorSamples: []string{}, KeyPrefix: keyPrefix}
	cpuBefore := cpuSeconds()
	res.Seconds = closedLoop(*concurrency, *duration, &seq, op, rec)
	res.CPUSeconds = cpuSeconds() - cpuBefore
	var all []float64
	for _, l := range rec.lat {
		all = append(all, l...)
	}
	res.Ops = int64(len(all))
	res.Errors = rec.errors.Load()
	res.ErrorSamples = append(res.ErrorSamples, rec.samples...)
	res.OpsPerSecond = float64(res.Ops) / res.Seconds
	summarize(all, &res)
	emit(res)
}
