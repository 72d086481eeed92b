package main

// roundtrip: client-go typed clients (protobuf on the wire) create, get, update and
// status-update a Pod, a Deployment, a Service and a Node with (nearly) every field set, and
// compare each decoded answer with what was sent, field by field. Allowed differences are
// the server-set metadata and the fields kube-apiserver itself sets (listed per kind below,
// with the reason); anything else is a {"event":"diff"} line. Runs against kube-apiserver
// 1.32 unchanged, which is how the expectations were checked.

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// serverSet are paths the server fills in on every object (metadata it owns).
var serverSet = []string{".ObjectMeta.UID", ".ObjectMeta.ResourceVersion", ".ObjectMeta.CreationTimestamp", ".ObjectMeta.Generation", ".ObjectMeta.ManagedFields"}

// diffs lists the paths where got differs from sent: a field set in sent must come back
// equal; a field unset in sent may come back set only under an `allowed` prefix.
func diffs(sent, got any, allowed []string) []string {
	var out []string
	walk(reflect.ValueOf(sent), reflect.ValueOf(got), "", append(append([]string{}, serverSet...), allowed...), &out)
	sort.Strings(out)
	return out
}

func isAllowed(path string, allowed []string) bool {
	for _, p := range allowed {
		if path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[") {
			return true
		}
	}
	return false
}

func walk(a, b reflect.Value, path string, allowed []string, out *[]string) {
	if isAllowed(path, allowed) {
		return
	}
	if !a.IsValid() || !b.IsValid() {
		if a.IsValid() != b.IsValid() {
			*out = append(*out, path)
		}
		return
	}
	// Quantities and times compare by value, not by their cached string forms.
	if q, ok := a.Interface().(resource.Quantity); ok {
		if q2 := b.Interface().(resource.Quantity); q.Cmp(q2) != 0 {
			*out = append(*out, fmt.Sprintf("%s: sent %s, got %s", path, q.String(), q2.String()))
		}
		return
	}
	if t, ok := a.Interface().(metav1.Time); ok {
		if t2 := b.Interface().(metav1.Time); !t.Equal(&t2) {
			*out = append(*out, fmt.Sprintf("%s: sent %v, got %v", path, t, t2))
		}
		return
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() && !(a.IsNil() && isAllowed(path, allowed)) {
				*out = append(*out, fmt.Sprintf("%s: sent %s, got %s", path, describe(a), describe(b)))
			}
			return
		}
		walk(a.Elem(), b.Elem(), path, allowed, out)
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !a.Type().Field(i).IsExported() {
				continue
			}
			walk(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name, allowed, out)
		}
	case reflect.Slice:
		if a.Len() != b.Len() {
			*out = append(*out, fmt.Sprintf("%s: sent %d items, got %d", path, a.Len(), b.Len()))
			return
		}
		for i := 0; i < a.Len(); i++ {
			walk(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i), allowed, out)
		}
	case reflect.Map:
		keys := map[string]reflect.Value{}
		for _, k := range a.MapKeys() {
			keys[fmt.Sprint(k.Interface())] = k
		}
		for _, k := range b.MapKeys() {
			keys[fmt.Sprint(k.Interface())] = k
		}
		for name, k := range keys {
			walk(a.MapIndex(k), b.MapIndex(k), fmt.Sprintf("%s[%s]", path, name), allowed, out)
		}
	default:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			*out = append(*out, fmt.Sprintf("%s: sent %v, got %v", path, a.Interface(), b.Interface()))
		}
	}
}

func describe(v reflect.Value) string {
	if v.IsNil() {
		return "nil"
	}
	return fmt.Sprintf("%v", v.Elem().Interface())
}

// leaves counts the fields set (non-zero leaves) in v: how much of the type a fixture covers.
func leaves(v reflect.Value) int {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return 0
		}
		return leaves(v.Elem())
	case reflect.Struct:
		if _, ok := v.Interface().(resource.Quantity); ok {
			return 1
		}
		if t, ok := v.Interface().(metav1.Time); ok {
			if t.Time.IsZero() {
				return 0
			}
			return 1
		}
		n := 0
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() && v.Type().Field(i).Name != "ManagedFields" {
				n += leaves(v.Field(i))
			}
		}
		return n
	case reflect.Slice, reflect.Map:
		n := 0
		if v.Kind() == reflect.Slice {
			for i := 0; i < v.Len(); i++ {
				n += leaves(v.Index(i))
			}
		} else {
			iter := v.MapRange()
			for iter.Next() {
				n += 1 + leaves(iter.Value())
			}
		}
		return n
	default:
		if v.IsZero() {
			return 0
		}
		return 1
	}
}

type roundTrip struct {
	ctx    context.Context
	cs     *kubernetes.Clientset
	ns     string
	steps  int
	failed int
}

// check reports one comparison: a step line, and a diff line per difference.
func (r *roundTrip) check(kind, step string, sent, got any, err error, allowed []string) {
	r.steps++
	if err != nil {
		r.failed++
		emit(map[string]any{"event": "step", "kind": kind, "step": step, "ok": false, "error": err.Error()})
		return
	}
	d := diffs(sent, got, allowed)
	if len(d) > 0 {
		r.failed++
	}
	emit(map[string]any{"event": "step", "kind": kind, "step": step, "ok": len(d) == 0, "diff": d, "fieldsSet": leaves(reflect.ValueOf(sent))})
}

func runRoundTrip(args []string) error {
	flags := parseFlags("roundtrip", args)
	cs, w, err := clientset(flags)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	r := &roundTrip{ctx: ctx, cs: cs, ns: flags.namespace}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: r.ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	// The pod's service account must exist (kube's ServiceAccount admission looks it up).
	if _, err := cs.CoreV1().ServiceAccounts(r.ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "roundtrip"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	r.pod()
	r.deployment()
	r.service()
	r.node()
	emit(map[string]any{"event": "done", "steps": r.steps, "failed": r.failed, "wire": w.snapshot()})
	if r.failed > 0 {
		return fmt.Errorf("%d steps failed", r.failed)
	}
	return nil
}

var statusOnly = []string{".Status"}

func (r *roundTrip) pod() {
	pods := r.cs.CoreV1().Pods(r.ns)
	sent := fullPod(r.ns)
	// Create and update keep the spec as sent; the server sets the pod's initial status
	// (phase Pending, qosClass) and kube's Priority admission resolves priority.
	created, err := pods.Create(r.ctx, sent.DeepCopy(), metav1.CreateOptions{})
	r.check("Pod", "create", sent, created, err, statusOnly)
	if err != nil {
		return
	}
	got, err := pods.Get(r.ctx, sent.Name, metav1.GetOptions{})
	r.check("Pod", "get", created, got, err, nil)
	if err != nil {
		return
	}
	changed := got.DeepCopy()
	changed.Labels["changed"] = "yes"
	changed.Spec.Containers[0].Image = "registry.example/app:2.0"
	updated, err := pods.Update(r.ctx, changed.DeepCopy(), metav1.UpdateOptions{})
	r.check("Pod", "update", changed, updated, err, nil)
	if err != nil {
		return
	}
	withStatus := updated.DeepCopy()
	withStatus.Status = fullPodStatus()
	afterStatus, err := pods.UpdateStatus(r.ctx, withStatus.DeepCopy(), metav1.UpdateOptions{})
	r.check("Pod", "updateStatus", withStatus, afterStatus, err, nil)
	final, err := pods.Get(r.ctx, sent.Name, metav1.GetOptions{})
	if err == nil && afterStatus != nil {
		r.check("Pod", "get after status", afterStatus, final, err, nil)
	}
}

func (r *roundTrip) deployment() {
	deployments := r.cs.AppsV1().Deployments(r.ns)
	sent := fullDeployment(r.ns)
	created, err := deployments.Create(r.ctx, sent.DeepCopy(), metav1.CreateOptions{})
	r.check("Deployment", "create", sent, created, err, nil)
	if err != nil {
		return
	}
	changed := created.DeepCopy()
	changed.Spec.Replicas = ptr(int32(5))
	changed.Spec.Template.Spec.Containers[0].Image = "registry.example/app:2.0"
	updated, err := deployments.Update(r.ctx, changed.DeepCopy(), metav1.UpdateOptions{})
	r.check("Deployment", "update", changed, updated, err, nil)
	if err == nil && updated.Generation != created.Generation+1 {
		r.check("Deployment", "generation", created.Generation+1, updated.Generation, nil, nil)
	}
	if err != nil {
		return
	}
	withStatus := updated.DeepCopy()
	withStatus.Status = appsv1.DeploymentStatus{
		ObservedGeneration:  updated.Generation,
		Replicas:            5,
		UpdatedReplicas:     4,
		ReadyReplicas:       4,
		AvailableReplicas:   3,
		UnavailableReplicas: 2,
		CollisionCount:      ptr(int32(1)),
		Conditions: []appsv1.DeploymentCondition{{
			Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable", Message: "ok",
			LastUpdateTime: metav1.NewTime(fixedTime), LastTransitionTime: metav1.NewTime(fixedTime),
		}},
	}
	afterStatus, err := deployments.UpdateStatus(r.ctx, withStatus.DeepCopy(), metav1.UpdateOptions{})
	r.check("Deployment", "updateStatus", withStatus, afterStatus, err, nil)
	got, err := deployments.Get(r.ctx, sent.Name, metav1.GetOptions{})
	if afterStatus != nil {
		r.check("Deployment", "get", afterStatus, got, err, nil)
	}
	// The main resource ignores status; /status ignores spec.
	if got != nil {
		ignored := got.DeepCopy()
		ignored.Status.Replicas = 1
		afterMain, err := deployments.Update(r.ctx, ignored, metav1.UpdateOptions{})
		r.check("Deployment", "update ignores status", got.Status, statusOf(afterMain), err, nil)
	}
}

func statusOf(d *appsv1.Deployment) appsv1.DeploymentStatus {
	if d == nil {
		return appsv1.DeploymentStatus{}
	}
	return d.Status
}

func (r *roundTrip) service() {
	services := r.cs.CoreV1().Services(r.ns)
	sent := fullService(r.ns)
	created, err := services.Create(r.ctx, sent.DeepCopy(), metav1.CreateOptions{})
	r.check("Service", "create", sent, created, err, nil)
	if err != nil {
		return
	}
	changed := created.DeepCopy()
	changed.Spec.Selector["tier"] = "web"
	updated, err := services.Update(r.ctx, changed.DeepCopy(), metav1.UpdateOptions{})
	r.check("Service", "update", changed, updated, err, nil)
	if err != nil {
		return
	}
	withStatus := updated.DeepCopy()
	withStatus.Status = corev1.ServiceStatus{
		LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{
			IP: "192.0.2.10", Hostname: "lb.example.com", IPMode: ptr(corev1.LoadBalancerIPModeVIP),
			Ports: []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP, Error: ptr("Pending")}},
		}}},
		Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, ObservedGeneration: 1, LastTransitionTime: metav1.NewTime(fixedTime), Reason: "Provisioned", Message: "ok"}},
	}
	afterStatus, err := services.UpdateStatus(r.ctx, withStatus.DeepCopy(), metav1.UpdateOptions{})
	r.check("Service", "updateStatus", withStatus, afterStatus, err, nil)
	got, err := services.Get(r.ctx, sent.Name, metav1.GetOptions{})
	if afterStatus != nil {
		r.check("Service", "get", afterStatus, got, err, nil)
	}
	_ = services.Delete(r.ctx, sent.Name, metav1.DeleteOptions{})
}

func (r *roundTrip) node() {
	nodes := r.cs.CoreV1().Nodes()
	sent := fullNode(r.ns)
	_ = nodes.Delete(r.ctx, sent.Name, metav1.DeleteOptions{})
	// A node may be created with its status (kubelets register that way).
	created, err := nodes.Create(r.ctx, sent.DeepCopy(), metav1.CreateOptions{})
	r.check("Node", "create", sent, created, err, statusOnly)
	if err != nil {
		return
	}
	changed := created.DeepCopy()
	changed.Spec.Unschedulable = false
	changed.Labels["changed"] = "yes"
	updated, err := nodes.Update(r.ctx, changed.DeepCopy(), metav1.UpdateOptions{})
	r.check("Node", "update", changed, updated, err, statusOnly)
	if err != nil {
		return
	}
	withStatus := updated.DeepCopy()
	withStatus.Status = fullNodeStatus()
	afterStatus, err := nodes.UpdateStatus(r.ctx, withStatus.DeepCopy(), metav1.UpdateOptions{})
	r.check("Node", "updateStatus", withStatus, afterStatus, err, nil)
	got, err := nodes.Get(r.ctx, sent.Name, metav1.GetOptions{})
	if afterStatus != nil {
		r.check("Node", "get", afterStatus, got, err, nil)
	}
	_ = nodes.Delete(r.ctx, sent.Name, metav1.DeleteOptions{})
}

var fixedTime = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

func q(s string) resource.Quantity { return resource.MustParse(s) }
