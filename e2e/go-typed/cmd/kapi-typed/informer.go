package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// runInformer keeps a typed ConfigMap informer (protobuf list and watch) and compares its
// store with a fresh typed list when told to.
func runInformer(args []string) error {
	flags := parseFlags("informer", args)
	cs, w, err := clientset(flags)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(flags.namespace))
	informer := factory.Core().V1().ConfigMaps().Informer()
	events := map[string]int{}
	_, _ = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { events["add"]++ },
		UpdateFunc: func(any, any) { events["update"]++ },
		DeleteFunc: func(any) { events["delete"]++ },
	})
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		return fmt.Errorf("informer did not sync")
	}
	emit(map[string]any{"event": "synced", "count": len(informer.GetStore().List())})

	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() != "check" {
			continue
		}
		emit(compare(ctx, informer.GetStore(), cs.CoreV1().ConfigMaps(flags.namespace).List, events, w))
	}
	return in.Err()
}

type lister func(context.Context, metav1.ListOptions) (*corev1.ConfigMapList, error)

// compare waits (up to 30 s) until the store equals a fresh list by name and resourceVersion.
func compare(ctx context.Context, store cache.Store, list lister, events map[string]int, w *wire) map[string]any {
	deadline := time.Now().Add(30 * time.Second)
	diff := []string{}
	for {
		fresh, err := list(ctx, metav1.ListOptions{})
		if err != nil {
			return map[string]any{"event": "result", "match": false, "diff": []string{err.Error()}}
		}
		want := map[string]string{}
		for _, item := range fresh.Items {
			want[item.Name] = item.ResourceVersion + " " + fmt.Sprint(item.Data)
		}
		have := map[string]string{}
		for _, obj := range store.List() {
			cm := obj.(*corev1.ConfigMap)
			have[cm.Name] = cm.ResourceVersion + " " + fmt.Sprint(cm.Data)
		}
		diff = diff[:0]
		for name, v := range want {
			if have[name] != v {
				diff = append(diff, fmt.Sprintf("%s: list %q, informer %q", name, v, have[name]))
			}
		}
		for name, v := range have {
			if _, ok := want[name]; !ok {
				diff = append(diff, fmt.Sprintf("%s: only in the informer (%q)", name, v))
			}
		}
		if len(diff) == 0 || time.Now().After(deadline) {
			sort.Strings(diff)
			return map[string]any{"event": "result", "match": len(diff) == 0, "diff": diff, "count": len(have), "events": events, "wire": w.snapshot()}
		}
		time.Sleep(200 * time.Millisecond)
	}
}
