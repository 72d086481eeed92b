// Command kapi-crd-dynamic exercises custom resources through client-go's dynamic client:
// create, a paged list, a watch from the list's resourceVersion that must see ADDED, MODIFIED
// and DELETED for writes made after it started, and a list through a second (deprecated)
// version. It is driven by e2e/src/crd/client-go-crd.test.ts after the test applied the
// widgets.e2e.example.com CRD, and prints one JSON line:
//
//	{"event":"result","ok":true|false,"problems":[...],"listed":N,"pages":N,"events":[...]}
//
// Exit status 0 when ok.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
)

type result struct {
	Event    string   `json:"event"`
	OK       bool     `json:"ok"`
	Problems []string `json:"problems"`
	Listed   int      `json:"listed"`
	Pages    int      `json:"pages"`
	Events   []string `json:"events"`
}

func widget(name string, size int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "e2e.example.com/v1",
		"kind":       "Widget",
		"metadata":   map[string]any{"name": name},
		"spec":       map[string]any{"size": size},
	}}
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the server")
	namespace := flag.String("namespace", "default", "namespace of the widgets")
	count := flag.Int("count", 25, "widgets to create before listing")
	flag.Parse()
	out := result{Event: "result", Problems: []string{}, Events: []string{}}
	problem := func(format string, args ...any) { out.Problems = append(out.Problems, fmt.Sprintf(format, args...)) }
	defer func() {
		out.OK = len(out.Problems) == 0
		line, _ := json.Marshal(out)
		fmt.Println(string(line))
		if !out.OK {
			os.Exit(1)
		}
	}()

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		problem("kubeconfig: %v", err)
		return
	}
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		problem("dynamic client: %v", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	widgets := client.Resource(schema.GroupVersionResource{Group: "e2e.example.com", Version: "v1", Resource: "widgets"}).Namespace(*namespace)

	for i := 0; i < *count; i++ {
		created, err := widgets.Create(ctx, widget(fmt.Sprintf("go-%02d", i), int64(i)), metav1.CreateOptions{})
		if err != nil {
			problem("create go-%02d: %v", i, err)
			return
		}
		if color, _, _ := unstructured.NestedString(created.Object, "spec", "color"); color != "blue" {
			problem("create go-%02d: spec.color = %q, want the schema default \"blue\"", i, color)
		}
	}

	// A paged list, then a watch from its resourceVersion.
	var rv, cont string
	for {
		page, err := widgets.List(ctx, metav1.ListOptions{Limit: 10, Continue: cont})
		if err != nil {
			problem("list: %v", err)
			return
		}
		out.Pages++
		out.Listed += len(page.Items)
		for _, item := range page.Items {
			if item.GetAPIVersion() != "e2e.example.com/v1" || item.GetKind() != "Widget" {
				problem("list item %s: %s %s", item.GetName(), item.GetAPIVersion(), item.GetKind())
			}
		}
		if rv == "" {
			rv = page.GetResourceVersion()
		}
		cont = page.GetContinue()
		if cont == "" {
			break
		}
	}
	if out.Listed != *count {
		problem("listed %d widgets, want %d", out.Listed, *count)
	}
	w, err := widgets.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
	if err != nil {
		problem("watch: %v", err)
		return
	}
	defer w.Stop()
	if _, err := widgets.Create(ctx, widget("go-late", 100), metav1.CreateOptions{}); err != nil {
		problem("create go-late: %v", err)
	}
	if _, err := widgets.Patch(ctx, "go-00", types.MergePatchType, []byte(`{"spec":{"size":42}}`), metav1.PatchOptions{}); err != nil {
		problem("patch go-00: %v", err)
	}
	if err := widgets.Delete(ctx, "go-01", metav1.DeleteOptions{}); err != nil {
		problem("delete go-01: %v", err)
	}
	want := []string{"ADDED go-late", "MODIFIED go-00", "DELETED go-01"}
	timeout := time.After(20 * time.Second)
	for len(out.Events) < len(want) {
		select {
		case ev, open := <-w.ResultChan():
			if !open {
				problem("watch closed after %v", out.Events)
				return
			}
			if ev.Type == watch.Bookmark {
				continue
			}
			obj, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				problem("watch event %s of %T", ev.Type, ev.Object)
				return
			}
			out.Events = append(out.Events, fmt.Sprintf("%s %s", ev.Type, obj.GetName()))
			if ev.Type == watch.Modified {
				if size, _, _ := unstructured.NestedInt64(obj.Object, "spec", "size"); size != 42 {
					problem("MODIFIED go-00 carries spec.size %d", size)
				}
				if obj.GetGeneration() != 2 {
					problem("MODIFIED go-00 has generation %d, want 2", obj.GetGeneration())
				}
			}
		case <-timeout:
			problem("watch saw %v, want %v", out.Events, want)
			return
		}
	}
	for i := range want {
		if out.Events[i] != want[i] {
			problem("watch saw %v, want %v", out.Events, want)
			break
		}
	}

	// The same objects through the deprecated version.
	beta := client.Resource(schema.GroupVersionResource{Group: "e2e.example.com", Version: "v1beta1", Resource: "widgets"}).Namespace(*namespace)
	list, err := beta.List(ctx, metav1.ListOptions{})
	if err != nil {
		problem("list v1beta1: %v", err)
		return
	}
	if len(list.Items) != *count {
		problem("v1beta1 list has %d items, want %d", len(list.Items), *count)
	}
	for _, item := range list.Items {
		if item.GetAPIVersion() != "e2e.example.com/v1beta1" {
			problem("v1beta1 item %s has apiVersion %s", item.GetName(), item.GetAPIVersion())
		}
	}
}
