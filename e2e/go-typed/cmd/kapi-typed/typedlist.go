package main

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// runTypedList lists every built-in kind of a namespace with the typed clientset (the
// informers' first call) and reports per resource whether the list decoded:
// {"event":"listed","resource":…,"count":n} or {"event":"listed","resource":…,"error":"…"},
// then {"event":"done"}. A stored value the Go types cannot hold fails the whole list.
func runTypedList(args []string) error {
	flags := parseFlags("typed-list", args)
	cs, _, err := clientset(flags)
	if err != nil {
		return err
	}
	ctx := context.Background()
	opts := metav1.ListOptions{}
	ns := flags.namespace
	lists := []struct {
		resource string
		list     func() (int, error)
	}{
		{"configmaps", func() (int, error) {
			l, err := cs.CoreV1().ConfigMaps(ns).List(ctx, opts)
			if err != nil {
				return 0, err
			}
			return len(l.Items), nil
		}},
		{"secrets", func() (int, error) {
			l, err := cs.CoreV1().Secrets(ns).List(ctx, opts)
			if err != nil {
				return 0, err
			}
			return len(l.Items), nil
		}},
		{"serviceaccounts", func() (int, error) {
			l, err := cs.CoreV1().ServiceAccounts(ns).List(ctx, opts)
			if err != nil {
				return 0, err
			}
			return len(l.Items), nil
		}},
		{"events", func() (int, error) {
			l, err := cs.CoreV1().Events(ns).List(ctx, opts)
			if err != nil {
				return 0, err
			}
			return len(l.Items), nil
		}},
		{"events.events.k8s.io", func() (int, error) {
			l, err := cs.EventsV1().Events(ns).List(ctx, opts)
			if err != nil {
				return 0, err
			}
			return len(l.Items), nil
		}},
		{"leases.coordination.k8s.io", func() (int, error) {
			l, err := cs.CoordinationV1().Leases(ns).List(ctx, opts)
			if err != nil {
				return 0, err
			}
			return len(l.Items), nil
		}},
		{"namespaces", func() (int, error) {
			l, err := cs.CoreV1().Namespaces().List(ctx, opts)
			if err != nil {
				return 0, err
			}
			return len(l.Items), nil
		}},
	}
	for _, l := range lists {
		n, err := l.list()
		if err != nil {
			emit(map[string]any{"event": "listed", "resource": l.resource, "error": err.Error()})
			continue
		}
		emit(map[string]any{"event": "listed", "resource": l.resource, "count": n})
	}
	emit(map[string]any{"event": "done"})
	return nil
}
