package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"

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
