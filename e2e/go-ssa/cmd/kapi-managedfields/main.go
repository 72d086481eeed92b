// Command kapi-managedfields replays a sequence of writes through Kubernetes' own field
// manager (k8s.io/apimachinery managedfields, typed with client-go's applyconfigurations
// schema) and prints the managedFields after every step, so tests can compare kapi's
// FieldsV1 bookkeeping with structured-merge-diff's.
//
// Input (stdin): {"group":"","version":"v1","kind":"ConfigMap","steps":[{"op":"create|update|apply",
// "manager":"m","force":false,"object":{...}}]}.
// Output (stdout): one JSON line per step: {"managedFields":[...without time...],"object":{...}}
// or {"error":"<message>"}.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
)

type step struct {
	Op      string                 `json:"op"`
	Manager string                 `json:"manager"`
	Force   bool                   `json:"force"`
	Object  map[string]interface{} `json:"object"`
}

type input struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
	Steps   []step `json:"steps"`
}

// The objects stay unstructured in one version: no conversion or defaulting is needed.
type noopConverter struct{}

func (noopConverter) Convert(in, out, context interface{}) error { return nil }
func (noopConverter) ConvertToVersion(in runtime.Object, _ runtime.GroupVersioner) (runtime.Object, error) {
	return in, nil
}
func (noopConverter) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

type noopDefaulter struct{}

func (noopDefaulter) Default(runtime.Object) {}

type creater struct{}

func (creater) New(kind schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{Object: map[string]interface{}{}}
	u.SetGroupVersionKind(kind)
	return u, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fail(err)
	}
	gvk := schema.GroupVersionKind{Group: in.Group, Version: in.Version, Kind: in.Kind}
	fm, err := managedfields.NewDefaultCRDFieldManager(
		applyconfigurations.NewTypeConverter(scheme.Scheme), noopConverter{}, noopDefaulter{}, creater{}, gvk, gvk.GroupVersion(), "", nil)
	if err != nil {
		fail(err)
	}
	out := json.NewEncoder(os.Stdout)
	var live *unstructured.Unstructured
	for i, s := range in.Steps {
		obj := &unstructured.Unstructured{Object: s.Object}
		var result runtime.Object
		switch s.Op {
		case "create":
			empty, _ := creater{}.New(gvk)
			result, err = fm.Update(empty, obj, s.Manager)
		case "update":
			result, err = fm.Update(live, obj, s.Manager)
		case "apply":
			base := live
			if base == nil {
				empty, _ := creater{}.New(gvk)
				base = empty.(*unstructured.Unstructured)
			}
			result, err = fm.Apply(base, obj, s.Manager, s.Force)
		default:
			fail(fmt.Errorf("step %d: unknown op %q", i, s.Op))
		}
		if err != nil {
			_ = out.Encode(map[string]string{"error": err.Error()})
			continue
		}
		u := result.(*unstructured.Unstructured)
		// What the server sets on a new object (an existing object is tracked even without managedFields).
		if u.GetUID() == "" {
			u.SetUID("uid-1")
		}
		live = u
		entries := u.GetManagedFields()
		for j := range entries {
			entries[j].Time = nil
		}
		content := u.DeepCopy().Object
		unstructured.RemoveNestedField(content, "metadata", "managedFields")
		if entries == nil {
			entries = []metav1.ManagedFieldsEntry{}
		}
		if err := out.Encode(map[string]interface{}{"managedFields": entries, "object": content}); err != nil {
			fail(err)
		}
	}
}
