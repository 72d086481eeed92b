package main

import (
	"context"
	"fmt"
	"time"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// typedResource lists one resource of kapi a page at a time and gets one object of it, both
// with a typed client (for a custom resource, the dynamic client).
type typedResource struct {
	gvr schema.GroupVersionResource
	// custom: a CRD's version, which may not be served (yet, or any more) when listed.
	custom bool
	list   func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	get    func(ctx context.Context, namespace, name string) error
}

var getOptions = metav1.GetOptions{}

// builtins: every built-in resource and version kapi serves, through client-go's typed clientset.
func builtins(cs *kubernetes.Clientset, ext *apiextensionsclient.Clientset) []typedResource {
	return []typedResource{
		{gvr("", "v1", "namespaces"), false,
			func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return cs.CoreV1().Namespaces().List(ctx, o)
			},
			func(ctx context.Context, _, n string) error {
				_, err := cs.CoreV1().Namespaces().Get(ctx, n, getOptions)
				return err
			}},
		{gvr("", "v1", "configmaps"), false,
			func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return cs.CoreV1().ConfigMaps("").List(ctx, o)
			},
			func(ctx context.Context, ns, n string) error {
				_, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, n, getOptions)
				return err
			}},
		{gvr("", "v1", "secrets"), false,
			func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return cs.CoreV1().Secrets("").List(ctx, o)
			},
			func(ctx context.Context, ns, n string) error {
				_, err := cs.CoreV1().Secrets(ns).Get(ctx, n, getOptions)
				return err
			}},
		{gvr("", "v1", "serviceaccounts"), false,
			func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return cs.CoreV1().ServiceAccounts("").List(ctx, o)
			},
			func(ctx context.Context, ns, n string) error {
				_, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, n, getOptions)
				return err
			}},
		{gvr("", "v1", "events"), false,
			func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return cs.CoreV1().Events("").List(ctx, o)
			},
			func(ctx context.Context, ns, n string) error {
				_, err := cs.CoreV1().Events(ns).Get(ctx, n, getOptions)
				return err
			}},
		{gvr("events.k8s.io", "v1", "events"), false,
			func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return cs.EventsV1().Events("").List(ctx, o)
			},
			func(ctx context.Context, ns, n string) error {
				_, err := cs.EventsV1().Events(ns).Get(ctx, n, getOptions)
				return err
			}},
		{gvr("events.k8s.io", "v1beta1", "events"), false,
			func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return cs.EventsV1beta1().Events("").List(ctx, o)
			},
			func(ctx context.Context, ns, n string) error {
				_, err := cs.EventsV1beta1().Events(ns).Get(ctx, n, getOptions)
				return err
			}},
		{gvr("coordination.k8s.io", "v1", "leases"), false,
			func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return cs.CoordinationV1().Leases("").List(ctx, o)
			},
			func(ctx context.Context, ns, n string) error {
				_, err := cs.CoordinationV1().Leases(ns).Get(ctx, n, getOptions)
				return err
			}},
		{gvr("coordination.k8s.io", "v1beta1", "leases"), false,
			func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return cs.CoordinationV1beta1().Leases("").List(ctx, o)
			},
			func(ctx context.Context, ns, n string) error {
				_, err := cs.CoordinationV1beta1().Leases(ns).Get(ctx, n, getOptions)
				return err
			}},
		{gvr("apiextensions.k8s.io", "v1", "customresourcedefinitions"), false,
			func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return ext.ApiextensionsV1().CustomResourceDefinitions().List(ctx, o)
			},
			func(ctx context.Context, _, n string) error {
				_, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, n, getOptions)
				return err
			}},
	}
}

func gvr(group, version, resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: group, Version: version, Resource: resource}
}

// customResources: every served version of every CRD, through the dynamic client (there is no
// typed client for them; a page that is not JSON, or not objects, fails the unstructured decode).
func customResources(ctx context.Context, ext *apiextensionsclient.Clientset, dyn dynamic.Interface) ([]typedResource, error) {
	crds, err := ext.ApiextensionsV1().CustomResourceDefinitions().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []typedResource
	for _, crd := range crds.Items {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			r := gvr(crd.Spec.Group, v.Name, crd.Spec.Names.Plural)
			namespaced := crd.Spec.Scope == "Namespaced"
			out = append(out, typedResource{r, true,
				func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
					return dyn.Resource(r).List(ctx, o)
				},
				func(ctx context.Context, ns, n string) error {
					var err error
					if namespaced {
						_, err = dyn.Resource(r).Namespace(ns).Get(ctx, n, getOptions)
					} else {
						_, err = dyn.Resource(r).Get(ctx, n, getOptions)
					}
					return err
				}})
		}
	}
	return out, nil
}

// runDecodeCheck is `kapi-typed decode-check`: see main.go.
func runDecodeCheck(args []string) error {
	flags := parseFlags("decode-check", args)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	failures := 0
	objects := 0
	for _, wire := range []string{"protobuf", "json"} {
		config, err := clientcmd.BuildConfigFromFlags("", flags.kubeconfig)
		if err != nil {
			return err
		}
		config.QPS = 1000
		config.Burst = 1000
		config.UserAgent = rest.DefaultKubernetesUserAgent()
		if wire == "json" {
			config.ContentType = "application/json"
			config.AcceptContentTypes = "application/json"
		}
		cs, err := kubernetes.NewForConfig(config)
		if err != nil {
			return err
		}
		ext, err := apiextensionsclient.NewForConfig(config)
		if err != nil {
			return err
		}
		dyn, err := dynamic.NewForConfig(config)
		if err != nil {
			return err
		}
		resources := builtins(cs, ext)
		if wire == "json" {
			crs, err := customResources(ctx, ext, dyn)
			if err != nil {
				return fmt.Errorf("list CRDs: %w", err)
			}
			resources = append(resources, crs...)
		}
		for _, r := range resources {
			n, bad, err := checkResource(ctx, r, dyn)
			if err != nil {
				return fmt.Errorf("%s (%s): %w", r.gvr, wire, err)
			}
			objects += n
			for _, b := range bad {
				failures++
				b["wire"] = wire
				emit(b)
			}
			emit(map[string]any{"event": "resource", "wire": wire, "group": r.gvr.Group, "version": r.gvr.Version, "resource": r.gvr.Resource, "objects": n, "undecodable": len(bad)})
		}
	}
	emit(map[string]any{"event": "done", "objects": objects, "undecodable": failures})
	return nil
}

// checkResource pages through a typed list; when a page does not decode, it finds the objects
// that do not by listing names with the dynamic client (unstructured) and getting each one typed.
func checkResource(ctx context.Context, r typedResource, dyn dynamic.Interface) (int, []map[string]any, error) {
	count := 0
	opts := metav1.ListOptions{Limit: 500}
	for {
		list, err := r.list(ctx, opts)
		if r.custom && apierrors.IsNotFound(err) {
			return count, nil, nil
		}
		if err != nil {
			return findUndecodable(ctx, r, dyn, err)
		}
		count += meta.LenList(list)
		accessor, err := meta.ListAccessor(list)
		if err != nil {
			return 0, nil, err
		}
		if accessor.GetContinue() == "" {
			return count, nil, nil
		}
		opts.Continue = accessor.GetContinue()
	}
}

func findUndecodable(ctx context.Context, r typedResource, dyn dynamic.Interface, listErr error) (int, []map[string]any, error) {
	var bad []map[string]any
	count := 0
	opts := metav1.ListOptions{Limit: 500}
	for {
		list, err := dyn.Resource(r.gvr).List(ctx, opts)
		if err != nil {
			return 0, nil, fmt.Errorf("typed list failed (%v) and so did the dynamic list: %w", listErr, err)
		}
		for _, item := range list.Items {
			count++
			if err := r.get(ctx, item.GetNamespace(), item.GetName()); err != nil {
				bad = append(bad, map[string]any{
					"event": "undecodable", "group": r.gvr.Group, "version": r.gvr.Version, "resource": r.gvr.Resource,
					"namespace": item.GetNamespace(), "name": item.GetName(), "error": err.Error(),
				})
			}
		}
		if list.GetContinue() == "" {
			break
		}
		opts.Continue = list.GetContinue()
	}
	if len(bad) == 0 {
		bad = append(bad, map[string]any{
			"event": "undecodable", "group": r.gvr.Group, "version": r.gvr.Version, "resource": r.gvr.Resource,
			"error": "the typed list failed but every object decodes alone: " + listErr.Error(),
		})
	}
	return count, bad, nil
}
