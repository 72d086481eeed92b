package main

// Facts of kube's registry code that change what the generic store does, read from the
// sources of k8s.io/kubernetes (and of kube-aggregator and apiextensions-apiserver):
// etcd key prefixes, which strategies own metadata.generation, which allow PUT to create or
// an update without resourceVersion, and which deletes answer with the object.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// StrategyFacts are the generic-store switches of one resource.
type StrategyFacts struct {
	// Generation: "bump" (1 on create, +1 when anything but metadata and status changes),
	// "create" (1 on create, never bumped: priorityclasses) or "" (the client's value is kept).
	Generation               string `json:"generation,omitempty"`
	AllowCreateOnUpdate      bool   `json:"allowCreateOnUpdate"`
	AllowUnconditionalUpdate bool   `json:"allowUnconditionalUpdate"`
	ReturnDeletedObject      bool   `json:"returnDeletedObject"`
}

var (
	specialPrefixes = regexp.MustCompile(`\{Group: "([^"]*)", Resource: "([^"]+)"\}:\s+"([^"]+)"`)
	createOnUpdate  = regexp.MustCompile(`\) AllowCreateOnUpdate\(\) bool \{\s*return (true|false)`)
	unconditional   = regexp.MustCompile(`\) AllowUnconditionalUpdate\(\) bool \{\s*return (true|false)`)
	generationOne   = regexp.MustCompile(`\.Generation = 1\b`)
	generationBump  = regexp.MustCompile(`\.Generation = \w+\.Generation \+ 1\b`)
	returnDeleted   = regexp.MustCompile(`ReturnDeletedObject:\s+true`)
)

// storagePrefixes reads kube's SpecialDefaultResourcePrefixes ("group/resource" → prefix).
func storagePrefixes(kubeDir string) (map[string]string, error) {
	data, err := os.ReadFile(filepath.Join(kubeDir, "pkg", "kubeapiserver", "default_storage_factory_builder.go"))
	if err != nil {
		return nil, err
	}
	text := string(data)
	start := strings.Index(text, "SpecialDefaultResourcePrefixes = map")
	end := strings.Index(text[start:], "\n}\n")
	if start < 0 || end < 0 {
		return nil, fmt.Errorf("SpecialDefaultResourcePrefixes not found")
	}
	out := map[string]string{}
	for _, m := range specialPrefixes.FindAllStringSubmatch(text[start:start+end], -1) {
		out[m[1]+"/"+m[2]] = m[3]
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("SpecialDefaultResourcePrefixes is empty")
	}
	return out, nil
}

// The registry packages whose directory is not `<module>/pkg/registry/<group pkg>/<singular>`.
// "" = no strategy of its own (bindings are served by the pods' registry: create only).
var registryDirExceptions = map[string]string{
	"/endpoints":           "pkg/registry/core/endpoint",
	"/bindings":            "",
	"events.k8s.io/events": "pkg/registry/core/event",
	"certificates.k8s.io/certificatesigningrequests": "pkg/registry/certificates/certificates",
}

// groupPackage is the directory name of a group under pkg/registry.
func groupPackage(group string) string {
	switch group {
	case "":
		return "core"
	case "rbac.authorization.k8s.io":
		return "rbac"
	case "flowcontrol.apiserver.k8s.io":
		return "flowcontrol"
	}
	return strings.TrimSuffix(group, ".k8s.io")
}

// findRegistryDir locates the registry code of group/resource.
func findRegistryDir(dirs moduleDirs, group, resource, singular string) (string, error) {
	key := group + "/" + resource
	if rel, ok := registryDirExceptions[key]; ok {
		if rel == "" {
			return "", nil
		}
		return filepath.Join(dirs.kube, rel), nil
	}
	switch group {
	case "apiregistration.k8s.io":
		return filepath.Join(dirs.aggregator, "pkg", "registry", "apiservice"), nil
	case "apiextensions.k8s.io":
		return filepath.Join(dirs.apiextensions, "pkg", "registry", "customresourcedefinition"), nil
	}
	dir := filepath.Join(dirs.kube, "pkg", "registry", groupPackage(group), singular)
	if _, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("no registry code for %s: %w", key, err)
	}
	return dir, nil
}

// readTree concatenates the non-test Go files under dir.
func readTree(dir string) (string, error) {
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		b.Write(data)
		b.WriteString("\n")
		return nil
	})
	return b.String(), err
}

// strategyFacts reads the switches of one resource from its registry code. The first
// AllowCreateOnUpdate/AllowUnconditionalUpdate in strategy.go is the main resource's.
func strategyFacts(dir string) (StrategyFacts, error) {
	if dir == "" {
		return StrategyFacts{AllowUnconditionalUpdate: true}, nil
	}
	strategy, _ := os.ReadFile(filepath.Join(dir, "strategy.go"))
	storage, err := readTree(filepath.Join(dir, "storage"))
	if err != nil && !os.IsNotExist(err) {
		return StrategyFacts{}, err
	}
	if len(strategy) == 0 {
		// Resources without a strategy (review APIs, componentstatuses, bindings) have none of these.
		return StrategyFacts{AllowUnconditionalUpdate: true}, nil
	}
	text := string(strategy)
	facts := StrategyFacts{AllowUnconditionalUpdate: true}
	if m := createOnUpdate.FindStringSubmatch(text); m != nil {
		facts.AllowCreateOnUpdate = m[1] == "true"
	}
	if m := unconditional.FindStringSubmatch(text); m != nil {
		facts.AllowUnconditionalUpdate = m[1] == "true"
	}
	switch {
	case generationBump.MatchString(text):
		facts.Generation = "bump"
	case generationOne.MatchString(text):
		facts.Generation = "create"
	}
	facts.ReturnDeletedObject = returnDeleted.MatchString(storage)
	return facts, nil
}
