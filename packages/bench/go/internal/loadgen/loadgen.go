// Package loadgen holds what kapi-bench's Go load programs (kapi-bench-client, kapi-bench-etcd)
// share: a closed loop of goroutines, a latency recorder, nearest-rank quantiles and the JSON
// lines through which kapi-bench reads them.
package loadgen

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Emit prints v as one JSON line on standard output.
func Emit(v any) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

// Fail prints "program: message" on standard error and exits 1.
func Fail(program, format string, args ...any) {
	fmt.Fprintf(os.Stderr, program+": "+format+"\n", args...)
	os.Exit(1)
}

// Recorder keeps the latencies (ms) of successful operations, one slice per worker so that
// workers record without a lock, and counts failures with up to five error texts.
type Recorder struct {
	lat     [][]float64
	errors  atomic.Int64
	mu      sync.Mutex
	samples []string
}

// NewRecorder is a recorder for workers numbered 0 to workers-1.
func NewRecorder(workers int) *Recorder {
	return &Recorder{lat: make([][]float64, workers)}
}

// Done records one operation of worker that started at start and ended now with err.
func (r *Recorder) Done(worker int, start time.Time, err error) {
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

// Latencies is every recorded latency in ms, sorted (call it once the workers have stopped).
func (r *Recorder) Latencies() []float64 {
	var all []float64
	for _, l := range r.lat {
		all = append(all, l...)
	}
	sort.Float64s(all)
	return all
}

// Errors is the number of failed operations.
func (r *Recorder) Errors() int64 { return r.errors.Load() }

// Samples is up to five error texts.
func (r *Recorder) Samples() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.samples...)
}

// ClosedLoop runs op from n goroutines (worker 0 to n-1), each calling it again as soon as it
// returns, until d has passed; seq numbers the calls uniquely across runs. With a recorder each
// call is recorded. It returns the seconds it ran.
func ClosedLoop(n int, d time.Duration, seq *atomic.Int64, op func(worker int, i int64) error, rec *Recorder) float64 {
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
					rec.Done(w, t0, err)
				}
			}
		}(w)
	}
	wg.Wait()
	return time.Since(started).Seconds()
}

// Quantile is the nearest-rank q-quantile of sorted latencies; -1 when there are none.
func Quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return -1
	}
	i := int(q*float64(len(sorted))+0.999999) - 1
	if i < 0 {
		i = 0
	}
	return sorted[i]
}

// CPUSeconds is the user + system CPU this process has used so far (-1 when unknown).
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
