// Command kapi-sa-client talks to the API server as a pod's process does: the server from
// KUBERNETES_SERVICE_HOST/PORT, the bearer token re-read from the token file of the
// kube-api-access volume (client-go's BearerTokenFile, as rest.InClusterConfig sets it up),
// the server's CA from that volume's ca.crt (the kube-root-ca.crt ConfigMap). It runs a fixed
// set of requests through client-go's typed-free dynamic client and prints one JSON line:
//
//	{"event":"result","codes":{"<request>":<HTTP status>,...}}
//
// so that e2e/src/service-account-client-go.test.ts can compare them with what the Role
// bound to the service account allows.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

type result struct {
	Event string         `json:"event"`
	Codes map[string]int `json:"codes"`
	Error string         `json:"error,omitempty"`
}

func code(err error) int {
	if err == nil {
		return 200
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return int(status.Status().Code)
	}
	return -1
}

func main() {
	volume := flag.String("volume", "", "directory holding token, ca.crt and namespace (the projected volume)")
	other := flag.String("other-namespace", "default", "a namespace the account has no rights in")
	flag.Parse()
	config := &rest.Config{
		Host:            "https://" + net.JoinHostPort(os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")),
		BearerTokenFile: filepath.Join(*volume, "token"),
		TLSClientConfig: rest.TLSClientConfig{CAFile: filepath.Join(*volume, "ca.crt")},
	}
	out := result{Event: "result", Codes: map[string]int{}}
	namespaceBytes, err := os.ReadFile(filepath.Join(*volume, "namespace"))
	if err != nil {
		out.Error = err.Error()
	}
	ns := string(namespaceBytes)
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		out.Error = err.Error()
	} else {
		ctx := context.Background()
		configmaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
		secrets := schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
		_, err = client.Resource(configmaps).Namespace(ns).List(ctx, metav1.ListOptions{})
		out.Codes["list configmaps"] = code(err)
		_, err = client.Resource(configmaps).Namespace(ns).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
		out.Codes["get configmap kube-root-ca.crt"] = code(err)
		cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "from-pod"}, "data": map[string]any{"a": "b"}}}
		_, err = client.Resource(configmaps).Namespace(ns).Create(ctx, cm, metav1.CreateOptions{})
		out.Codes["create configmap"] = code(err)
		err = client.Resource(configmaps).Namespace(ns).Delete(ctx, "from-pod", metav1.DeleteOptions{})
		out.Codes["delete configmap"] = code(err)
		_, err = client.Resource(secrets).Namespace(ns).List(ctx, metav1.ListOptions{})
		out.Codes["list secrets"] = code(err)
		_, err = client.Resource(configmaps).Namespace(*other).List(ctx, metav1.ListOptions{})
		out.Codes["list configmaps in another namespace"] = code(err)
	}
	line, _ := json.Marshal(out)
	fmt.Println(string(line))
}
