package main

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

type crud struct {
	ctx    context.Context
	cs     *kubernetes.Clientset
	ns     string
	steps  int
	failed int
}

// step runs one check and reports it; a failed step does not stop the rest.
func (c *crud) step(name string, fn func() error) {
	c.steps++
	err := fn()
	if err != nil {
		c.failed++
		emit(map[string]any{"event": "step", "name": name, "ok": false, "error": err.Error()})
		return
	}
	emit(map[string]any{"event": "step", "name": name, "ok": true})
}

func expect(cond bool, format string, args ...any) error {
	if cond {
		return nil
	}
	return fmt.Errorf(format, args...)
}

func runCrud(args []string) error {
	flags := parseFlags("crud", args)
	cs, w, err := clientset(flags)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := &crud{ctx: ctx, cs: cs, ns: flags.namespace}
	c.namespaces()
	c.configMaps()
	c.others()
	emit(map[string]any{"event": "done", "steps": c.steps, "failed": c.failed, "wire": w.snapshot()})
	if c.failed > 0 {
		return fmt.Errorf("%d steps failed", c.failed)
	}
	return nil
}

func (c *crud) namespaces() {
	nsClient := c.cs.CoreV1().Namespaces()
	var created *corev1.Namespace
	c.step("namespace create", func() (err error) {
		created, err = nsClient.Create(c.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.ns, Labels: map[string]string{"team": "e2e"}}}, metav1.CreateOptions{FieldManager: "kapi-typed"})
		if err != nil {
			return err
		}
		return expect(created.Name == c.ns && created.Status.Phase == corev1.NamespaceActive && reflect.DeepEqual(created.Spec.Finalizers, []corev1.FinalizerName{"kubernetes"}) &&
			created.Labels["kubernetes.io/metadata.name"] == c.ns && created.Labels["team"] == "e2e" && !created.CreationTimestamp.IsZero() && created.UID != "",
			"unexpected namespace %+v", created)
	})
	c.step("namespace get, update, list", func() error {
		got, err := nsClient.Get(c.ctx, c.ns, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := expect(got.ResourceVersion == created.ResourceVersion && got.CreationTimestamp.Equal(&created.CreationTimestamp), "get differs from create: %+v", got); err != nil {
			return err
		}
		got.Annotations = map[string]string{"note": "updated"}
		updated, err := nsClient.Update(c.ctx, got, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		if err := expect(updated.Annotations["note"] == "updated" && updated.ResourceVersion != got.ResourceVersion, "update not applied: %+v", updated); err != nil {
			return err
		}
		list, err := nsClient.List(c.ctx, metav1.ListOptions{LabelSelector: "team=e2e"})
		if err != nil {
			return err
		}
		return expect(len(list.Items) >= 1 && list.ResourceVersion != "", "namespace list: %d items, rv %q", len(list.Items), list.ResourceVersion)
	})
	c.step("namespace delete and not found", func() error {
		other := c.ns + "-gone"
		if _, err := nsClient.Create(c.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: other}}, metav1.CreateOptions{}); err != nil {
			return err
		}
		if err := nsClient.Delete(c.ctx, other, metav1.DeleteOptions{}); err != nil {
			return err
		}
		// The namespace controller empties and finalizes it; it is gone shortly after.
		var err error
		for i := 0; i < 300; i++ {
			if _, err = nsClient.Get(c.ctx, other, metav1.GetOptions{}); apierrors.IsNotFound(err) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		return expect(apierrors.IsNotFound(err), "get after delete: %v", err)
	})
}

func (c *crud) configMaps() {
	cms := c.cs.CoreV1().ConfigMaps(c.ns)
	binary := []byte{0, 1, 2, 254, 255}
	var created *corev1.ConfigMap
	c.step("configmap create", func() (err error) {
		immutable := false
		created, err = cms.Create(c.ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "typed", Labels: map[string]string{"app": "typed"}, Annotations: map[string]string{"note": "cödé ✓"}},
			Data:       map[string]string{"a": "1", "empty": ""},
			BinaryData: map[string][]byte{"bin": binary},
			Immutable:  &immutable,
		}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		return expect(created.Data["a"] == "1" && bytes.Equal(created.BinaryData["bin"], binary) && created.Immutable != nil && !*created.Immutable &&
			created.Namespace == c.ns && created.Annotations["note"] == "cödé ✓" && len(created.ManagedFields) == 1 && created.ManagedFields[0].Manager == "kapi-typed",
			"unexpected configmap %+v", created)
	})
	c.step("configmap get and update; a stale update conflicts", func() error {
		got, err := cms.Get(c.ctx, "typed", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := expect(reflect.DeepEqual(got.Data, created.Data) && got.ResourceVersion == created.ResourceVersion, "get differs: %+v", got); err != nil {
			return err
		}
		got.Data["b"] = "2"
		updated, err := cms.Update(c.ctx, got, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		if err := expect(updated.Data["b"] == "2" && updated.ResourceVersion != got.ResourceVersion, "update not applied: %+v", updated); err != nil {
			return err
		}
		_, err = cms.Update(c.ctx, got, metav1.UpdateOptions{})
		return expect(apierrors.IsConflict(err), "stale update: %v", err)
	})
	c.step("configmap list in pages", func() error {
		for i := 0; i < 7; i++ {
			if _, err := cms.Create(c.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("page-%d", i), Labels: map[string]string{"app": "paged"}}, Data: map[string]string{"i": fmt.Sprint(i)}}, metav1.CreateOptions{}); err != nil {
				return err
			}
		}
		names := []string{}
		opts := metav1.ListOptions{LabelSelector: "app=paged", Limit: 3}
		for pages := 0; ; pages++ {
			list, err := cms.List(c.ctx, opts)
			if err != nil {
				return err
			}
			for _, item := range list.Items {
				names = append(names, item.Name)
			}
			if list.Continue == "" {
				return expect(len(names) == 7 && pages == 2, "paged list: %v in %d pages", names, pages+1)
			}
			opts.Continue = list.Continue
		}
	})
	c.step("configmap watch sees create, update, delete in order", func() error {
		list, err := cms.List(c.ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		w, err := cms.Watch(c.ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion, AllowWatchBookmarks: true})
		if err != nil {
			return err
		}
		defer w.Stop()
		cm, err := cms.Create(c.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "watched"}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		cm.Data["v"] = "2"
		if _, err := cms.Update(c.ctx, cm, metav1.UpdateOptions{}); err != nil {
			return err
		}
		if err := cms.Delete(c.ctx, "watched", metav1.DeleteOptions{}); err != nil {
			return err
		}
		var seen []string
		timeout := time.After(15 * time.Second)
		for len(seen) < 3 {
			select {
			case ev, ok := <-w.ResultChan():
				if !ok {
					return fmt.Errorf("watch closed after %v", seen)
				}
				if ev.Type == watch.Bookmark {
					continue
				}
				obj, isCM := ev.Object.(*corev1.ConfigMap)
				if !isCM {
					return fmt.Errorf("event %s carries %T", ev.Type, ev.Object)
				}
				seen = append(seen, fmt.Sprintf("%s %s %s", ev.Type, obj.Name, obj.Data["v"]))
			case <-timeout:
				return fmt.Errorf("watch saw only %v", seen)
			}
		}
		return expect(reflect.DeepEqual(seen, []string{"ADDED watched 1", "MODIFIED watched 2", "DELETED watched 2"}), "events %v", seen)
	})
	c.step("configmap delete with preconditions; get is NotFound", func() error {
		stale := "1"
		err := cms.Delete(c.ctx, "typed", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &stale}})
		if err := expect(apierrors.IsConflict(err), "delete with a stale precondition: %v", err); err != nil {
			return err
		}
		policy := metav1.DeletePropagationBackground
		if err := cms.Delete(c.ctx, "typed", metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
			return err
		}
		_, err = cms.Get(c.ctx, "typed", metav1.GetOptions{})
		return expect(apierrors.IsNotFound(err), "get after delete: %v", err)
	})
	c.step("configmap deletecollection", func() error {
		if err := cms.DeleteCollection(c.ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "app=paged"}); err != nil {
			return err
		}
		list, err := cms.List(c.ctx, metav1.ListOptions{LabelSelector: "app=paged"})
		if err != nil {
			return err
		}
		return expect(len(list.Items) == 0, "left after deletecollection: %d", len(list.Items))
	})
}

func (c *crud) others() {
	c.step("secret with binary data", func() error {
		data := map[string][]byte{"key": {0xff, 0x00, 'k', 0x80}}
		created, err := c.cs.CoreV1().Secrets(c.ns).Create(c.ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "typed-secret"}, Data: data, StringData: map[string]string{"plain": "text"}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		return expect(bytes.Equal(created.Data["key"], data["key"]) && string(created.Data["plain"]) == "text" && created.Type == corev1.SecretTypeOpaque && created.StringData == nil,
			"unexpected secret %+v", created)
	})
	c.step("lease with microsecond times", func() error {
		holder := "node-1"
		duration := int32(15)
		renew := metav1.NewMicroTime(time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC))
		created, err := c.cs.CoordinationV1().Leases(c.ns).Create(c.ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "typed-lease"}, Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &duration, RenewTime: &renew}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		return expect(created.Spec.RenewTime != nil && created.Spec.RenewTime.Time.Equal(renew.Time) && *created.Spec.HolderIdentity == holder && *created.Spec.LeaseDurationSeconds == 15 && created.Spec.AcquireTime == nil,
			"unexpected lease spec %+v", created.Spec)
	})
	c.step("event with series and eventTime", func() error {
		when := metav1.NewMicroTime(time.Date(2024, 1, 2, 3, 4, 5, 6000, time.UTC))
		ev := &corev1.Event{
			ObjectMeta:          metav1.ObjectMeta{Name: "typed-event"},
			InvolvedObject:      corev1.ObjectReference{Kind: "ConfigMap", Namespace: c.ns, Name: "typed"},
			Reason:              "Tested",
			Message:             "from the typed client",
			Type:                corev1.EventTypeNormal,
			EventTime:           when,
			Series:              &corev1.EventSeries{Count: 2, LastObservedTime: when},
			Action:              "Test",
			ReportingController: "kapi.e2e/typed",
			ReportingInstance:   "typed-1",
		}
		created, err := c.cs.CoreV1().Events(c.ns).Create(c.ctx, ev, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		return expect(created.EventTime.Time.Equal(when.Time) && created.Series != nil && created.Series.Count == 2 && created.ReportingController == "kapi.e2e/typed" && created.FirstTimestamp.IsZero(),
			"unexpected event %+v", created)
	})
	c.step("service account", func() error {
		automount := false
		created, err := c.cs.CoreV1().ServiceAccounts(c.ns).Create(c.ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "typed-sa"}, AutomountServiceAccountToken: &automount, Secrets: []corev1.ObjectReference{{Name: "s", Namespace: "ignored"}}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		return expect(created.AutomountServiceAccountToken != nil && !*created.AutomountServiceAccountToken && len(created.Secrets) == 1 && created.Secrets[0].Name == "s",
			"unexpected service account %+v", created)
	})
}
