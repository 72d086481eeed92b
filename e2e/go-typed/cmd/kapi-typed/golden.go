package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
)

type goldenRequest struct {
	ID       string          `json:"id"`
	Op       string          `json:"op"`
	Object   json.RawMessage `json:"object"`
	Protobuf string          `json:"protobuf"`
	Type     string          `json:"type"`
	Value    string          `json:"value"`
}

// parse answers whether metav1.Time, metav1.MicroTime or resource.ParseQuantity accept a string.
func parse(req goldenRequest) {
	var err error
	switch req.Type {
	case "time":
		var t metav1.Time
		err = t.UnmarshalJSON(quoted(req.Value))
	case "microtime":
		var t metav1.MicroTime
		err = t.UnmarshalJSON(quoted(req.Value))
	case "quantity":
		_, err = resource.ParseQuantity(req.Value)
	default:
		err = fmt.Errorf("unknown type %q", req.Type)
	}
	out := map[string]any{"event": "parsed", "id": req.ID}
	if err != nil {
		out["error"] = err.Error()
	}
	emit(out)
}

func quoted(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// runGolden converts objects with the Go types: JSON → typed → protobuf (k8s\0 envelope)
// and protobuf → typed → JSON, one request per stdin line.
func runGolden() error {
	pb := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	decoder := scheme.Codecs.UniversalDeserializer()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 16<<20), 16<<20)
	for in.Scan() {
		var req goldenRequest
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			return err
		}
		if req.Op == "parse" {
			parse(req)
			continue
		}
		var obj runtime.Object
		var err error
		switch req.Op {
		case "encode":
			obj, _, err = decoder.Decode(req.Object, nil, nil)
		case "decode":
			var data []byte
			data, err = base64.StdEncoding.DecodeString(req.Protobuf)
			if err == nil {
				var gvk *schema.GroupVersionKind
				obj, gvk, err = pb.Decode(data, nil, nil)
				if err == nil {
					obj.GetObjectKind().SetGroupVersionKind(*gvk)
				}
			}
		default:
			err = fmt.Errorf("unknown op %q", req.Op)
		}
		if err != nil {
			emit(map[string]any{"event": "converted", "id": req.ID, "error": err.Error()})
			continue
		}
		var buf bytes.Buffer
		if err := pb.Encode(obj, &buf); err != nil {
			emit(map[string]any{"event": "converted", "id": req.ID, "error": err.Error()})
			continue
		}
		jsonBytes, err := json.Marshal(obj)
		if err != nil {
			emit(map[string]any{"event": "converted", "id": req.ID, "error": err.Error()})
			continue
		}
		emit(map[string]any{"event": "converted", "id": req.ID, "protobuf": base64.StdEncoding.EncodeToString(buf.Bytes()), "json": json.RawMessage(jsonBytes)})
	}
	return in.Err()
}
