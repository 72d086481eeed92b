// Command render prints the manifests a Helm chart renders to, the way `helm template` does,
// using Helm's own chart loader, values coalescing and template engine (helm.sh/helm/v3).
// There is no helm binary on the development machines; the chart tests run this instead.
//
//	go run . -chart ../kapi -release kapi -namespace kapi-system [-f values.yaml ...] [-set a.b=c ...] [-existing objects.yaml]
//
// -create DIR writes the chart `helm create` scaffolds (Helm's own chartutil.Create; the chart
// is named after DIR's base name) and exits, so a test can render a stock chart.
//
// -existing names a YAML file of objects the chart's `lookup` finds (a stand-in for the
// cluster, e.g. the Secrets a previous render created), so an upgrade can be rendered.
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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
)

// existingObjects answers the chart's lookup calls from a fixed set of objects.
type existingObjects struct{ client *dynamicfake.FakeDynamicClient }

func (e existingObjects) GetClientFor(apiVersion, kind string) (dynamic.NamespaceableResourceInterface, bool, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, false, err
	}
	resource := strings.ToLower(kind) + "s"
	return e.client.Resource(gv.WithResource(resource)), true, nil
}

func loadExisting(file string) (existingObjects, error) {
	f, err := os.Open(file)
	if err != nil {
		return existingObjects{}, err
	}
	defer f.Close()
	decoder := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	var objects []runtime.Object
	for {
		var obj map[string]interface{}
		if err := decoder.Decode(&obj); err != nil {
			if err.Error() == "EOF" {
				break
			}
			return existingObjects{}, err
		}
		if obj == nil {
			continue
		}
		objects = append(objects, &unstructured.Unstructured{Object: obj})
	}
	return existingObjects{client: dynamicfake.NewSimpleDynamicClient(runtime.NewScheme(), objects...)}, nil
}

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
	existing := flag.String("existing", "", "YAML file of objects the chart's lookup finds")
	flag.Var(&apiVersions, "api-versions", "extra API version for .Capabilities.APIVersions (repeatable)")
	create := flag.String("create", "", "write the chart `helm create` makes to this directory and exit")
	flag.Parse()
	if *create != "" {
		if _, err := chartutil.Create(path.Base(*create), path.Dir(*create)); err != nil {
			fail(err)
		}
		return
	}
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
	var rendered map[string]string
	if *existing != "" {
		provider, lerr := loadExisting(*existing)
		if lerr != nil {
			fail(lerr)
		}
		rendered, err = engine.RenderWithClientProvider(chrt, renderValues, provider)
	} else {
		rendered, err = engine.Render(chrt, renderValues)
	}
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
