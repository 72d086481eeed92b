package main

import (
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptrace"
	"os"
	"sync"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// wire counts the Content-Types seen on requests and responses, the protocols the
// responses came over (HTTP/2.0 when ALPN chose h2) and the connections opened.
type wire struct {
	mu          sync.Mutex
	requests    map[string]int
	responses   map[string]int
	protocols   map[string]int
	connections int
	next        http.RoundTripper
}

func (w *wire) RoundTrip(req *http.Request) (*http.Response, error) {
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if !info.Reused {
			w.mu.Lock()
			w.connections++
			w.mu.Unlock()
		}
	}}
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	res, err := w.next.RoundTrip(req)
	w.mu.Lock()
	defer w.mu.Unlock()
	if ct := req.Header.Get("Content-Type"); ct != "" {
		w.requests[req.Method+" "+ct]++
	}
	if err == nil {
		w.responses[res.Header.Get("Content-Type")]++
		w.protocols[res.Proto]++
	}
	return res, err
}

func (w *wire) snapshot() map[string]any {
	w.mu.Lock()
	defer w.mu.Unlock()
	copyOf := func(m map[string]int) map[string]int {
		out := map[string]int{}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	return map[string]any{"requests": copyOf(w.requests), "responses": copyOf(w.responses), "protocols": copyOf(w.protocols), "connections": w.connections}
}

type common struct {
	kubeconfig  string
	namespace   string
	contentType string
}

func parseFlags(name string, args []string) common {
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	var c common
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", "kubeconfig of the server")
	fs.StringVar(&c.namespace, "namespace", "default", "namespace to work in")
	fs.StringVar(&c.contentType, "content-type", "", "request and preferred response content type (default: client-go's, protobuf)")
	_ = fs.Parse(args)
	return c
}

// clientset builds the typed clientset with client-go's defaults (no ContentType set, so
// protobuf; --content-type overrides), recording Content-Types on the wire.
func clientset(c common) (*kubernetes.Clientset, *wire, error) {
	config, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		return nil, nil, err
	}
	w := &wire{requests: map[string]int{}, responses: map[string]int{}, protocols: map[string]int{}}
	config.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		w.next = rt
		return w
	})
	config.QPS = 1000
	config.Burst = 1000
	config.UserAgent = rest.DefaultKubernetesUserAgent()
	if c.contentType != "" {
		config.ContentType = c.contentType
		config.AcceptContentTypes = c.contentType
	}
	cs, err := kubernetes.NewForConfig(config)
	return cs, w, err
}

var outMu sync.Mutex

func emit(v map[string]any) {
	outMu.Lock()
	defer outMu.Unlock()
	b, _ := json.Marshal(v)
	os.Stdout.Write(append(b, '\n'))
}
