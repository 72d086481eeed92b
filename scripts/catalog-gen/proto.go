package main

// The protobuf facts: upstream generated.proto files are parsed (comments dropped) into
// messages and fields; the messages the served kinds reach are written back out, one file
// per package, in a plain canonical form. Every field is checked against the Go type's
// `protobuf` tag.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

type protoField struct {
	Label  string // optional, repeated, or "" for maps
	Type   string // fully qualified with a leading dot for messages, or a scalar, or map<k, v>
	Name   string
	Number int
}

type protoMessage struct {
	Package string
	Name    string
	Fields  []protoField
}

func (m *protoMessage) full() string { return m.Package + "." + m.Name }

var (
	lineComment  = regexp.MustCompile(`//[^\n]*`)
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	packageDecl  = regexp.MustCompile(`(?m)^package ([\w.]+);`)
	messageDecl  = regexp.MustCompile(`(?s)message (\w+) \{(.*?)\n\}`)
	fieldDecl    = regexp.MustCompile(`^(optional|repeated) ([\w.]+) (\w+) = (\d+);$`)
	mapDecl      = regexp.MustCompile(`^map<(\w+), ([\w.]+)> (\w+) = (\d+);$`)
)

var scalarProtoTypes = map[string]bool{"string": true, "bytes": true, "bool": true, "int32": true, "int64": true, "double": true, "float": true, "uint32": true, "uint64": true}

// qualify turns a type reference inside `pkg` into a fully qualified one (leading dot).
func qualify(pkg, t string) string {
	if scalarProtoTypes[t] || strings.HasPrefix(t, ".") {
		return t
	}
	return "." + pkg + "." + t
}

// parseProtoFile reads one upstream generated.proto.
func parseProtoFile(path string) ([]*protoMessage, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := blockComment.ReplaceAllString(lineComment.ReplaceAllString(string(data), ""), "")
	pm := packageDecl.FindStringSubmatch(text)
	if pm == nil {
		return nil, fmt.Errorf("%s: no package", path)
	}
	pkg := pm[1]
	var out []*protoMessage
	for _, mm := range messageDecl.FindAllStringSubmatch(text, -1) {
		msg := &protoMessage{Package: pkg, Name: mm[1]}
		for _, raw := range strings.Split(mm[2], "\n") {
			line := strings.TrimSpace(raw)
			if line == "" || strings.HasPrefix(line, "option ") {
				continue
			}
			var n int
			if f := fieldDecl.FindStringSubmatch(line); f != nil {
				fmt.Sscan(f[4], &n)
				msg.Fields = append(msg.Fields, protoField{Label: f[1], Type: qualify(pkg, f[2]), Name: f[3], Number: n})
			} else if f := mapDecl.FindStringSubmatch(line); f != nil {
				fmt.Sscan(f[4], &n)
				msg.Fields = append(msg.Fields, protoField{Type: fmt.Sprintf("map<%s, %s>", f[1], qualify(pkg, f[2])), Name: f[3], Number: n})
			} else {
				return nil, fmt.Errorf("%s: message %s: cannot parse %q", path, msg.Name, line)
			}
		}
		out = append(out, msg)
	}
	return out, nil
}

// protoIndex holds the parsed messages of every package loaded so far.
type protoIndex struct {
	moduleDirs map[string]string // Go module path → directory
	messages   map[string]*protoMessage
	loaded     map[string]bool
}

// goPackageOf reverses protoPackage (k8s.io.kube_aggregator.pkg.apis.apiregistration.v1 → k8s.io/kube-aggregator/pkg/apis/apiregistration/v1).
func goPackageOf(protoPkg string) string {
	rest := strings.TrimPrefix(protoPkg, "k8s.io.")
	return "k8s.io/" + strings.ReplaceAll(strings.ReplaceAll(rest, ".", "/"), "_", "-")
}

func (x *protoIndex) load(protoPkg string) error {
	if x.loaded[protoPkg] {
		return nil
	}
	x.loaded[protoPkg] = true
	goPkg := goPackageOf(protoPkg)
	// Module paths of the k8s.io repositories here have two elements (k8s.io/api).
	parts := strings.SplitN(goPkg, "/", 3)
	dir, ok := x.moduleDirs[parts[0]+"/"+parts[1]]
	if !ok {
		return fmt.Errorf("no module directory for %s", goPkg)
	}
	msgs, err := parseProtoFile(filepath.Join(dir, parts[2], "generated.proto"))
	if err != nil {
		return err
	}
	for _, m := range msgs {
		x.messages[m.full()] = m
	}
	return nil
}

func (x *protoIndex) message(full string) (*protoMessage, error) {
	pkg := full[:strings.LastIndex(full, ".")]
	if err := x.load(pkg); err != nil {
		return nil, err
	}
	m, ok := x.messages[full]
	if !ok {
		return nil, fmt.Errorf("no protobuf message %s", full)
	}
	return m, nil
}

// referenced returns the message names a field type mentions.
func referenced(t string) []string {
	if strings.HasPrefix(t, "map<") {
		v := strings.TrimSuffix(t[strings.Index(t, ", ")+2:], ">")
		return referenced(v)
	}
	if strings.HasPrefix(t, ".") {
		return []string{t[1:]}
	}
	return nil
}

// closure returns every message reachable from `roots`, by name.
func (x *protoIndex) closure(roots []string) (map[string]*protoMessage, error) {
	out := map[string]*protoMessage{}
	stack := append([]string(nil), roots...)
	for len(stack) > 0 {
		name := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if _, ok := out[name]; ok {
			continue
		}
		m, err := x.message(name)
		if err != nil {
			return nil, err
		}
		out[name] = m
		for _, f := range m.Fields {
			stack = append(stack, referenced(f.Type)...)
		}
	}
	return out, nil
}

// checkAgainstGo verifies that every Go field with a protobuf tag has the same number and
// name in the message, and that the message has no field the Go type lacks. Inline fields
// whose tag has no name get the message's.
func checkAgainstGo(m *Message, pm *protoMessage) []string {
	var errs []string
	byNumber := map[int]protoField{}
	for _, f := range pm.Fields {
		byNumber[f.Number] = f
	}
	seen := map[int]bool{}
	fields := m.Fields
	if m.ListOf != nil {
		fields = []Field{*m.ListOf}
	}
	for i := range fields {
		f := &fields[i]
		if f.Number == 0 {
			continue
		}
		pf, ok := byNumber[f.Number]
		if ok && f.Proto == "" && f.Inline {
			f.Proto = pf.Name // inline members' tags may leave the name out
		}
		wireName := f.Proto
		if wireName == "" {
			wireName = f.JSON
		}
		if !ok || pf.Name != wireName {
			errs = append(errs, fmt.Sprintf("%s: Go field %q (%d) is %q in the proto", m.Name, f.JSON, f.Number, pf.Name))
		}
		seen[f.Number] = true
	}
	for _, pf := range pm.Fields {
		if !seen[pf.Number] {
			errs = append(errs, fmt.Sprintf("%s: proto field %s = %d has no Go field", m.Name, pf.Name, pf.Number))
		}
	}
	return errs
}

// writeProtos writes one generated.proto per package under `dir`.
func writeProtos(dir string, messages map[string]*protoMessage, header string) ([]string, error) {
	byPkg := map[string][]*protoMessage{}
	for _, m := range messages {
		byPkg[m.Package] = append(byPkg[m.Package], m)
	}
	var files []string
	pkgs := make([]string, 0, len(byPkg))
	for p := range byPkg {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		msgs := byPkg[pkg]
		sort.Slice(msgs, func(i, j int) bool { return msgs[i].Name < msgs[j].Name })
		imports := map[string]bool{}
		var body strings.Builder
		for _, m := range msgs {
			fmt.Fprintf(&body, "\nmessage %s {\n", m.Name)
			for _, f := range m.Fields {
				for _, ref := range referenced(f.Type) {
					if p := ref[:strings.LastIndex(ref, ".")]; p != pkg {
						imports[p] = true
					}
				}
				if f.Label == "" {
					fmt.Fprintf(&body, "  %s %s = %d;\n", f.Type, f.Name, f.Number)
				} else {
					fmt.Fprintf(&body, "  %s %s %s = %d;\n", f.Label, f.Type, f.Name, f.Number)
				}
			}
			body.WriteString("}\n")
		}
		var out strings.Builder
		fmt.Fprintf(&out, "%s\nsyntax = \"proto2\";\n\npackage %s;\n", header, pkg)
		importList := make([]string, 0, len(imports))
		for p := range imports {
			importList = append(importList, p)
		}
		sort.Strings(importList)
		if len(importList) > 0 {
			out.WriteString("\n")
		}
		for _, p := range importList {
			fmt.Fprintf(&out, "import %q;\n", goPackageOf(p)+"/generated.proto")
		}
		out.WriteString(body.String())
		rel := filepath.Join(goPackageOf(pkg), "generated.proto")
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			return nil, err
		}
		files = append(files, rel)
	}
	return files, nil
}
