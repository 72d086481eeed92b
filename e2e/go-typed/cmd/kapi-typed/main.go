// Command kapi-typed drives kapi with client-go's typed clientset and its default content
// type (protobuf request bodies, `application/vnd.kubernetes.protobuf,application/json`
// accepted), and converts sample objects between JSON and protobuf with the Go types of
// k8s.io/api. It is driven by e2e/src/representations/client-go-typed.test.ts:
//
//	kapi-typed crud --kubeconfig K --namespace N
//	    create/get/update/list/watch/delete of Namespaces and ConfigMaps (plus Secret,
//	    Lease and Event round trips); one JSON line per step, then {"event":"done"}.
//	kapi-typed informer --kubeconfig K --namespace N
//	    a typed ConfigMap informer; {"event":"synced"}, then on stdin "check" compares its
//	    store with a fresh typed list: {"event":"result","match":…,"diff":[…]}.
//	kapi-typed typed-list --kubeconfig K --namespace N
//	    typed lists of every built-in kind in N (and of namespaces): one
//	    {"event":"listed","resource":…,"count"|"error":…} line each, then {"event":"done"}.
//	kapi-typed golden
//	    stdin lines {"id","op":"encode","object":{…}} or {"id","op":"decode","protobuf":"<base64>"};
//	    stdout {"event":"converted","id","protobuf":"<base64>","json":{…}} (the Go types' bytes and
//	    JSON), or {"event":"converted","id","error":"…"} (for encode: the typed JSON decoder's
//	    error), in request order. {"id","op":"parse","type":"time"|"microtime"|"quantity","value":"…"}
//	    answers {"event":"parsed","id","error"?:"…"}: metav1.Time/MicroTime's and
//	    resource.ParseQuantity's verdict on the string.
//	kapi-typed decode-check --kubeconfig K
//	    lists every built-in resource and version kapi serves with the typed clientsets
//	    (client-go's and apiextensions') over protobuf and over JSON, and every served version
//	    of every CRD with the dynamic client; one {"event":"undecodable",…,"error"} line per
//	    object that does not decode, one {"event":"resource",…} line per resource and wire,
//	    then {"event":"done","objects","undecodable"}.
//
//	kapi-typed roundtrip --kubeconfig K --namespace N
//	    create/get/update/updateStatus of a Pod, Deployment, Service and Node with (nearly)
//	    every field set, each answer compared field by field with what was sent; one
//	    {"event":"step","kind","step","ok","diff":[…]} line per comparison, then {"event":"done"}.
//
// Every HTTP exchange's Content-Types are recorded and reported, so the driver can check
// that protobuf really went over the wire.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: kapi-typed crud|informer|typed-list|golden|decode-check|roundtrip [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "crud":
		err = runCrud(os.Args[2:])
	case "informer":
		err = runInformer(os.Args[2:])
	case "typed-list":
		err = runTypedList(os.Args[2:])
	case "golden":
		err = runGolden()
	case "decode-check":
		err = runDecodeCheck(os.Args[2:])
	case "roundtrip":
		err = runRoundTrip(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
