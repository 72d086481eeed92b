package main

// The JSON facts of the Go types (k8s.io/api and friends), read by reflection: for every
// struct reached from the served kinds, each field's JSON name, whether it is inline,
// omitempty or a pointer, what it holds, and its protobuf field (from the `protobuf` tag).

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Field is one JSON field of a message and its protobuf field.
type Field struct {
	JSON string `json:"json"`
	// Proto is the protobuf field name when it differs from JSON ("" = none on the wire).
	Proto string `json:"proto,omitempty"`
	// Number is the protobuf field number; 0 for JSON-only fields.
	Number int `json:"-"`
	// Kind: string, int32, int64, bool, bytes, time, microTime, duration, quantity,
	// intOrString, fieldsV1, rawExtension, json, message.
	Kind string `json:"kind"`
	// Message is the full protobuf name of a message kind.
	Message string `json:"message,omitempty"`
	// Presence: "omitempty" (dropped when zero or empty), "required" (always written: a nil
	// list or map as null) or "pointer" (kept when present). encoding/json never drops a
	// struct, so for a struct only "pointer" (absent when nil) differs from the others.
	Presence string `json:"presence,omitempty"`
	// Container: "list" or "map" (string keys).
	Container string `json:"container,omitempty"`
	// Inline: an embedded struct whose JSON fields are the parent's (a nested message on the wire).
	Inline bool `json:"inline,omitempty"`
	// GoType is the Go type the JSON decodes into, where a named non-struct type gives it
	// (`v1.SecretType`, `types.UID`, `v1.ResourceList`): schema generation copies it to
	// `x-kapi-go-type`.
	GoType string `json:"-"`
	// ElemGoType is the named element type of a list or map of named scalars.
	ElemGoType string `json:"-"`
}

// Message is a struct (or a named slice wrapped as a message) and its fields in Go order.
type Message struct {
	Name   string  `json:"-"`
	Fields []Field `json:"fields,omitempty"`
	// ListOf: a named slice type (e.g. ExtraValue []string) whose JSON form is the array of
	// its `items` field.
	ListOf *Field `json:"listOf,omitempty"`
	// GoName is `<package>.<Type>` (e.g. `v1.PodSpec`).
	GoName string `json:"-"`
	goType reflect.Type
}

// wellKnown maps Go types with their own JSON form (and a fixed message) to a field kind.
var wellKnown = map[string]string{
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":                     "time",
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":                "microTime",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":                 "duration",
	"k8s.io/apimachinery/pkg/api/resource.Quantity":                 "quantity",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString":               "intOrString",
	"k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1":                 "fieldsV1",
	"k8s.io/apimachinery/pkg/runtime.RawExtension":                  "rawExtension",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON": "json",
	// apiextensions' schema unions: their own JSON forms (schema, bool, or array).
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrArray":       "jsonSchemaPropsOrArray",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrBool":        "jsonSchemaPropsOrBool",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrStringArray": "jsonSchemaPropsOrStringArray",
}

// protoPackage is the protobuf package of a Go package path, as go-to-protobuf names it
// (k8s.io/api/core/v1 → k8s.io.api.core.v1; dashes become underscores).
func protoPackage(goPackage string) string {
	return strings.ReplaceAll(strings.ReplaceAll(goPackage, "/", "."), "-", "_")
}

func protoName(t reflect.Type) string {
	return protoPackage(t.PkgPath()) + "." + t.Name()
}

// goName is how Go's encoding/json names a type in messages: `<last package element>.<Type>`.
func goName(t reflect.Type) string {
	if t.Name() == "" {
		return t.String()
	}
	pkg := t.PkgPath()
	return pkg[strings.LastIndex(pkg, "/")+1:] + "." + t.Name()
}

type typeWalker struct {
	messages map[string]*Message
	errs     []string
}

func newTypeWalker() *typeWalker {
	return &typeWalker{messages: map[string]*Message{}}
}

func (w *typeWalker) fail(format string, args ...any) {
	w.errs = append(w.errs, fmt.Sprintf(format, args...))
}

// visit records the struct `t` (and everything it reaches) and returns its protobuf name.
func (w *typeWalker) visit(t reflect.Type) string {
	name := protoName(t)
	if _, done := w.messages[name]; done {
		return name
	}
	m := &Message{Name: name, GoName: goName(t), goType: t}
	w.messages[name] = m
	if t.Kind() == reflect.Slice {
		elem := w.field(t.Elem(), name+".items", "", false)
		elem.JSON, elem.Proto, elem.Number, elem.Presence, elem.Container = "items", "", 1, "", "list"
		m.ListOf = &elem
		return name
	}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		jsonTag := sf.Tag.Get("json")
		if jsonTag == "-" {
			continue
		}
		jsonName, opts, _ := strings.Cut(jsonTag, ",")
		inline := strings.Contains(","+opts+",", ",inline,") || (jsonName == "" && sf.Anonymous)
		if inline && sf.Type.PkgPath() == "k8s.io/apimachinery/pkg/apis/meta/v1" && sf.Type.Name() == "TypeMeta" {
			continue // apiVersion and kind: the envelope's, not the message's
		}
		if jsonName == "" && !inline {
			jsonName = sf.Name
		}
		f := w.field(sf.Type, name+"."+sf.Name, sf.Tag.Get("protobuf"), strings.Contains(","+opts+",", ",omitempty,"))
		f.JSON = jsonName
		if inline {
			if f.Kind != "message" || f.Container != "" {
				w.fail("%s.%s: inline field of kind %s", name, sf.Name, f.Kind)
			}
			f.Inline = true
			f.JSON = ""
		}
		m.Fields = append(m.Fields, f)
	}
	return name
}

// field describes a value of Go type `t` at `where` with protobuf tag `tag`.
func (w *typeWalker) field(t reflect.Type, where, tag string, omitempty bool) Field {
	f := Field{Presence: "required"}
	if omitempty {
		f.Presence = "omitempty"
	}
	if tag != "" {
		parts := strings.Split(tag, ",")
		if len(parts) < 3 {
			w.fail("%s: bad protobuf tag %q", where, tag)
		} else {
			n, err := strconv.Atoi(parts[1])
			if err != nil {
				w.fail("%s: bad protobuf tag %q", where, tag)
			}
			f.Number = n
			for _, p := range parts[3:] {
				if v, ok := strings.CutPrefix(p, "name="); ok {
					f.Proto = v
				}
			}
		}
	}
	if t.Kind() == reflect.Ptr {
		f.Presence = "pointer"
		t = t.Elem()
	}
	if t.Name() != "" && t.PkgPath() != "" && t.Kind() != reflect.Struct && !isWellKnown(t) {
		f.GoType = goName(t)
	}
	switch {
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		f.Kind = "bytes"
	case t.Kind() == reflect.Slice:
		elem := w.field(t.Elem(), where+"[]", "", false)
		if elem.Container != "" {
			w.fail("%s: nested container %s", where, t)
		}
		f.Kind, f.Message, f.Container, f.ElemGoType = elem.Kind, elem.Message, "list", elem.GoType
	case t.Kind() == reflect.Map:
		if t.Key().Kind() != reflect.String {
			w.fail("%s: map key %s", where, t.Key())
		}
		value := t.Elem()
		if value.Kind() == reflect.Slice && value.Name() != "" && value.Elem().Kind() != reflect.Uint8 {
			// A named slice as map value is a message wrapping `repeated items` (ExtraValue).
			f.Kind, f.Message = "message", w.visit(value)
		} else {
			elem := w.field(value, where+"{}", "", false)
			if elem.Container != "" {
				w.fail("%s: nested container %s", where, t)
			}
			f.Kind, f.Message, f.ElemGoType = elem.Kind, elem.Message, elem.GoType
		}
		f.Container = "map"
	case isWellKnown(t):
		f.Kind = wellKnown[t.PkgPath()+"."+t.Name()]
		f.Message = protoName(t)
	case t.Kind() == reflect.Struct:
		f.Kind, f.Message = "message", w.visit(t)
	case t.Kind() == reflect.String:
		f.Kind = "string"
	case t.Kind() == reflect.Bool:
		f.Kind = "bool"
	case t.Kind() == reflect.Int32:
		f.Kind = "int32"
	case t.Kind() == reflect.Int64:
		f.Kind = "int64"
	case t.Kind() == reflect.Float64:
		f.Kind = "double"
	default:
		w.fail("%s: unsupported Go type %s", where, t)
	}
	return f
}

func isWellKnown(t reflect.Type) bool {
	_, ok := wellKnown[t.PkgPath()+"."+t.Name()]
	return ok
}

// sortedMessages returns the messages by name.
func (w *typeWalker) sortedMessages() []*Message {
	out := make([]*Message, 0, len(w.messages))
	for _, m := range w.messages {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
