// Command render prints the manifests a Helm chart renders to, the way `helm template` does,
// using Helm's own chart loader, values coalescing and template engine (helm.sh/helm/v3).
// There is no helm binary on the development machines; the chart tests run this instead.
//
//	go run . -chart ../kapi -release kapi -namespace kapi-system [-f values.yaml ...] [-set a.b=c ...]
//
// Output: every rendered manifest (hooks and tests included), sorted by template name, each
// preceded by "---" and a "# Source: <chart>/templates/<file>" line; NOTES.txt goes to
// stderr when -notes is given. Exits 1 with Helm's error text when loading or rendering fails.
package main

import (
	"flag"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/cli/values"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/getter"
)

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	var valueFiles, sets, apiVersions stringList
	chartPath := flag.String("chart", "", "path to the chart directory (required)")
	release := flag.String("release", "release-name", "release name")
	namespace := flag.String("namespace", "default", "release namespace")
	kubeVersion := flag.String("kube-version", "", "Kubernetes version for .Capabilities (default: Helm's)")
	isUpgrade := flag.Bool("upgrade", false, "render as an upgrade (.Release.IsUpgrade) instead of an install")
	notes := flag.Bool("notes", false, "also render NOTES.txt and print it to stderr")
	flag.Var(&valueFiles, "f", "values file (repeatable)")
	flag.Var(&sets, "set", "key=value override, Helm --set syntax (repeatable)")
	flag.Var(&apiVersions, "api-versions", "extra API version for .Capabilities.APIVersions (repeatable)")
	flag.Parse()
	if *chartPath == "" {
		fail(fmt.Errorf("-chart is required"))
	}

	chrt, err := loader.Load(*chartPath)
	if err != nil {
		fail(err)
	}
	if err := chrt.Validate(); err != nil {
		fail(err)
	}
	opts := values.Options{ValueFiles: valueFiles, Values: sets}
	vals, err := opts.MergeValues(getter.Providers{})
	if err != nil {
		fail(err)
	}
	caps := chartutil.DefaultCapabilities.Copy()
	if *kubeVersion != "" {
		kv, err := chartutil.ParseKubeVersion(*kubeVersion)
		if err != nil {
			fail(err)
		}
		caps.KubeVersion = *kv
	}
	caps.APIVersions = append(caps.APIVersions, apiVersions...)
	if err := chartutil.ProcessDependenciesWithMerge(chrt, vals); err != nil {
		fail(err)
	}
	renderValues, err := chartutil.ToRenderValues(chrt, vals, chartutil.ReleaseOptions{
		Name:      *release,
		Namespace: *namespace,
		Revision:  1,
		IsInstall: !*isUpgrade,
		IsUpgrade: *isUpgrade,
	}, caps)
	if err != nil {
		fail(err)
	}
	rendered, err := engine.Render(chrt, renderValues)
	if err != nil {
		fail(err)
	}

	names := make([]string, 0, len(rendered))
	for name := range rendered {
		names = append(names, name)
	}
	sort.Strings(names)
	var out strings.Builder
	for _, name := range names {
		body := strings.TrimSpace(rendered[name])
		base := path.Base(name)
		if base == "NOTES.txt" {
			if *notes {
				fmt.Fprintln(os.Stderr, body)
			}
			continue
		}
		if strings.HasPrefix(base, "_") || body == "" {
			continue
		}
		// A template may hold several documents; keep them as they are under one Source line.
		fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", name, strings.TrimPrefix(body, "---\n"))
	}
	if _, err := os.Stdout.WriteString(out.String()); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "Error: %v\n", err)
	os.Exit(1)
}
