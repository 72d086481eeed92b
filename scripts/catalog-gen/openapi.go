package main

// The schema facts: kube's published OpenAPI v3 documents (api/openapi-spec/v3 of
// k8s.io/kubernetes) of the served group versions, their component schemas without prose
// (descriptions, examples) and without `default` (kube defaults built-in kinds in Go code,
// while kapi's generic defaulting would apply them). Nodes whose Go type is a named
// non-struct type get `x-kapi-go-type` (kapi-only, never published).

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type jsonSchema = map[string]any

// droppedKeywords are prose or values kapi must not act on.
var droppedKeywords = map[string]bool{"description": true, "default": true, "example": true}

// stripProse copies a schema node without the dropped keywords (property names are kept).
func stripProse(node any) any {
	x, ok := node.(map[string]any)
	if !ok {
		return node
	}
	out := map[string]any{}
	for k, val := range x {
		switch {
		case droppedKeywords[k]:
		case k == "properties":
			props := map[string]any{}
			for name, p := range val.(map[string]any) {
				props[name] = stripProse(p)
			}
			out[k] = props
		case k == "items" || k == "additionalProperties" || k == "not":
			out[k] = stripProse(val)
		case k == "allOf" || k == "oneOf" || k == "anyOf":
			list := val.([]any)
			copied := make([]any, len(list))
			for i, member := range list {
				copied[i] = stripProse(member)
			}
			out[k] = copied
		default:
			out[k] = val
		}
	}
	return out
}

// specFile is the document of a group version in api/openapi-spec/v3.
func specFile(kubeDir, group, version string) string {
	name := "api__" + version + "_openapi.json"
	if group != "" {
		name = "apis__" + group + "__" + version + "_openapi.json"
	}
	return filepath.Join(kubeDir, "api", "openapi-spec", "v3", name)
}

// loadComponents merges the component schemas of the given group versions; the same name
// must describe the same schema in every document.
func loadComponents(kubeDir string, gvs [][2]string) (map[string]jsonSchema, error) {
	out := map[string]jsonSchema{}
	for _, gv := range gvs {
		data, err := os.ReadFile(specFile(kubeDir, gv[0], gv[1]))
		if err != nil {
			return nil, err
		}
		var doc struct {
			Components struct {
				Schemas map[string]any `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, err
		}
		for name, raw := range doc.Components.Schemas {
			s := stripProse(raw).(map[string]any)
			if prev, ok := out[name]; ok {
				a, _ := json.Marshal(prev)
				b, _ := json.Marshal(s)
				if string(a) != string(b) {
					return nil, fmt.Errorf("%s differs between documents", name)
				}
				continue
			}
			out[name] = s
		}
	}
	return out, nil
}

// openapiName is the OpenAPI definition name of a protobuf message name (k8s.io.api.core.v1.Pod → io.k8s.api.core.v1.Pod).
func openapiName(protoMessage string) string {
	return "io.k8s." + strings.ReplaceAll(strings.TrimPrefix(protoMessage, "k8s.io."), "_", "-")
}

// jsonFields returns the JSON fields of a message with inline members flattened.
func jsonFields(messages map[string]*Message, m *Message) []Field {
	var out []Field
	for _, f := range m.Fields {
		if f.Inline {
			out = append(out, jsonFields(messages, messages[f.Message])...)
			continue
		}
		out = append(out, f)
	}
	return out
}

// annotateGoTypes sets x-kapi-go-type on the properties (or their items / values) whose Go
// type is named, and checks that properties and Go fields agree.
func annotateGoTypes(defs map[string]jsonSchema, messages map[string]*Message) []string {
	var errs []string
	for _, m := range messages {
		if m.ListOf != nil {
			continue
		}
		def, ok := defs[openapiName(m.Name)]
		if !ok {
			continue // well-known and envelope types have no definition of their own
		}
		props, _ := def["properties"].(map[string]any)
		seen := map[string]bool{"apiVersion": true, "kind": true}
		for _, f := range jsonFields(messages, m) {
			seen[f.JSON] = true
			prop, ok := props[f.JSON].(map[string]any)
			if !ok {
				errs = append(errs, fmt.Sprintf("%s: Go field %q has no OpenAPI property", m.Name, f.JSON))
				continue
			}
			if f.GoType != "" {
				prop["x-kapi-go-type"] = f.GoType
			}
			if f.ElemGoType != "" {
				key := "items"
				if f.Container == "map" {
					key = "additionalProperties"
				}
				if elem, ok := prop[key].(map[string]any); ok {
					elem["x-kapi-go-type"] = f.ElemGoType
				} else {
					errs = append(errs, fmt.Sprintf("%s.%s: no %s to annotate", m.Name, f.JSON, key))
				}
			}
		}
		for name := range props {
			if !seen[name] {
				errs = append(errs, fmt.Sprintf("%s: OpenAPI property %q has no Go field", m.Name, name))
			}
		}
	}
	sort.Strings(errs)
	return errs
}

// opaqueKinds hold any JSON (kube's decoder keeps it as raw bytes): their definitions get
// `x-kubernetes-preserve-unknown-fields`, so that generic pruning and server-side apply keep
// what they hold, as kube does. (kube's published documents say only `type: object`.)
var opaqueKinds = map[string]bool{"fieldsV1": true, "rawExtension": true, "json": true, "jsonSchemaPropsOrArray": true, "jsonSchemaPropsOrBool": true, "jsonSchemaPropsOrStringArray": true}

// markOpaque sets x-kubernetes-preserve-unknown-fields on the definitions of opaque well-known types.
func markOpaque(defs map[string]jsonSchema) {
	for goType, kind := range wellKnown {
		if !opaqueKinds[kind] {
			continue
		}
		dot := strings.LastIndex(goType, ".")
		name := openapiName(protoPackage(goType[:dot]) + goType[dot:])
		if def, ok := defs[name]; ok {
			def["x-kubernetes-preserve-unknown-fields"] = true
		}
	}
}

// deriveVersion builds the definitions of `pkg` (a kapi-only version such as
// coordination/v1beta1) from those of `from` (its GA version, same fields): every
// definition of `from` that `pkg` has a Go struct for is copied, its references to `from`
// definitions that `pkg` also has are repointed, and its GVK tag names `version`.
func deriveVersion(defs map[string]jsonSchema, messages map[string]*Message, from, pkg, version string) error {
	fromPrefix, toPrefix := openapiName(from)+".", openapiName(pkg)+"."
	var names []string
	for _, m := range messages {
		if strings.HasPrefix(m.Name, pkg+".") && m.ListOf == nil {
			names = append(names, strings.TrimPrefix(m.Name, pkg+"."))
		}
	}
	local := map[string]bool{}
	for _, n := range names {
		local[n] = true
	}
	for _, n := range names {
		src, ok := defs[fromPrefix+n]
		if !ok {
			return fmt.Errorf("%s%s: no %s%s to derive it from", toPrefix, n, fromPrefix, n)
		}
		data, _ := json.Marshal(src)
		text := string(data)
		for other := range local {
			text = strings.ReplaceAll(text, `"#/components/schemas/`+fromPrefix+other+`"`, `"#/components/schemas/`+toPrefix+other+`"`)
		}
		var copied jsonSchema
		if err := json.Unmarshal([]byte(text), &copied); err != nil {
			return err
		}
		if gvks, ok := copied["x-kubernetes-group-version-kind"].([]any); ok {
			for _, g := range gvks {
				g.(map[string]any)["version"] = version
			}
		}
		defs[toPrefix+n] = copied
	}
	return nil
}
