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
	"flag"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"kapi-bench-go/internal/loadgen"
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

func fail(format string, args ...any) { loadgen.Fail("kapi-bench-etcd", format, args...) }

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
		loadgen.ClosedLoop(*concurrency, *warmup, &seq, op, nil)
	}
	loadgen.Emit(map[string]string{"event": "measuring"})
	rec := loadgen.NewRecorder(*concurrency)
	res := result{Event: "result", Mode: *mode, Concurrency: *concurrency, Clients: *clients, ValueBytes: *size, ErrorSamples: []string{}, KeyPrefix: keyPrefix}
	cpuBefore := loadgen.CPUSeconds()
	res.Seconds = loadgen.ClosedLoop(*concurrency, *duration, &seq, op, rec)
	res.CPUSeconds = loadgen.CPUSeconds() - cpuBefore
	all := rec.Latencies()
	res.Ops = int64(len(all))
	res.Errors = rec.Errors()
	res.ErrorSamples = append(res.ErrorSamples, rec.Samples()...)
	res.OpsPerSecond = float64(res.Ops) / res.Seconds
	res.P50, res.P90, res.P99, res.Max, res.Mean = loadgen.Quantile(all, 0.5), loadgen.Quantile(all, 0.9), loadgen.Quantile(all, 0.99), loadgen.Quantile(all, 1), mean(all)
	loadgen.Emit(res)
}

// mean of the latencies; -1 when there are none.
func mean(ms []float64) float64 {
	if len(ms) == 0 {
		return -1
	}
	var sum float64
	for _, v := range ms {
		sum += v
	}
	return sum / float64(len(ms))
}
