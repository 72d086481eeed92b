package main

// The served-resource table, from the discovery recorded from a real kube-apiserver
// (discovery.json: aggregated discovery of /api and /apis, and the legacy resource lists
// for the storage version hashes), joined with the Go scheme (list kinds, storage versions)
// and kube's registry facts (etcd prefixes, strategy switches).

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

type discoveredKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type discoveredResource struct {
	Resource     string          `json:"resource"`
	ResponseKind *discoveredKind `json:"responseKind"`
	Scope        string          `json:"scope"`
	Singular     string          `json:"singularResource"`
	Verbs        []string        `json:"verbs"`
	ShortNames   []string        `json:"shortNames"`
	Categories   []string        `json:"categories"`
	Subresources []struct {
		Subresource  string          `json:"subresource"`
		ResponseKind *discoveredKind `json:"responseKind"`
		Verbs        []string        `json:"verbs"`
	} `json:"subresources"`
}

type discoveredGroup struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Versions []struct {
		Version   string               `json:"version"`
		Resources []discoveredResource `json:"resources"`
	} `json:"versions"`
}

type discovery struct {
	GitVersion string `json:"gitVersion"`
	API        struct {
		Items []discoveredGroup `json:"items"`
	} `json:"api"`
	APIs struct {
		Items []discoveredGroup `json:"items"`
	} `json:"apis"`
	ResourceLists map[string]struct {
		Resources []struct {
			Name               string `json:"name"`
			StorageVersionHash string `json:"storageVersionHash"`
		} `json:"resources"`
	} `json:"resourceLists"`
}

func readDiscovery(path string) (*discovery, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w (record it with `make discovery`)", err)
	}
	var d discovery
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &d, nil
}

// GroupVersionKind as written in the table.
type GVK struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type Subresource struct {
	Name  string   `json:"name"`
	Kind  GVK      `json:"kind"`
	Verbs []string `json:"verbs"`
}

type Storage struct {
	// Prefix is the key path under --etcd-prefix (kube's resource prefix).
	Prefix string `json:"prefix"`
	// Version is the group version objects are stored as (kube's storage version).
	Group   string `json:"group"`
	Version string `json:"version"`
}

type Resource struct {
	Resource     string        `json:"resource"`
	Kind         string        `json:"kind"`
	ListKind     string        `json:"listKind,omitempty"`
	Singular     string        `json:"singular"`
	Namespaced   bool          `json:"namespaced"`
	Verbs        []string      `json:"verbs"`
	ShortNames   []string      `json:"shortNames,omitempty"`
	Categories   []string      `json:"categories,omitempty"`
	Subresources []Subresource `json:"subresources,omitempty"`
	Storage      Storage       `json:"storage"`
	Strategy     StrategyFacts `json:"strategy"`
}

type Version struct {
	Version   string     `json:"version"`
	Resources []Resource `json:"resources"`
}

type Group struct {
	Group string `json:"group"`
	// Versions in kube's preference order (the first is preferred).
	Versions []Version `json:"versions"`
}

type Table struct {
	Comment     string    `json:"//"`
	KubeVersion string    `json:"kubeVersion"`
	Groups      []Group   `json:"groups"`
	Kinds       []KindRef `json:"kinds"`
	ProtoFiles  []string  `json:"protoFiles"`
}

// storageVersion finds the kind whose storage version hash kube published.
func storageVersion(s *runtime.Scheme, kind, hash string) (schema.GroupVersionKind, error) {
	var found []schema.GroupVersionKind
	for gvk := range s.AllKnownTypes() {
		if gvk.Kind == kind && storageVersionHash(gvk) == hash {
			found = append(found, gvk)
		}
	}
	if len(found) != 1 {
		return schema.GroupVersionKind{}, fmt.Errorf("%s: %d kinds match storage version hash %s", kind, len(found), hash)
	}
	return found[0], nil
}

func buildTable(d *discovery, s *runtime.Scheme, prefixes map[string]string, dirs moduleDirs, addKind func(schema.GroupVersionKind) error) (*Table, error) {
	table := &Table{Comment: header + " The groups and versions are in kube's discovery order.", KubeVersion: d.GitVersion}
	groups := append(append([]discoveredGroup(nil), d.API.Items...), d.APIs.Items...)
	for _, dg := range groups {
		group := Group{Group: dg.Metadata.Name}
		for _, dv := range dg.Versions {
			gv := dv.Version
			if group.Group != "" {
				gv = group.Group + "/" + dv.Version
			}
			hashes := map[string]string{}
			for _, r := range d.ResourceLists[gv].Resources {
				hashes[r.Name] = r.StorageVersionHash
			}
			version := Version{Version: dv.Version}
			for _, dr := range dv.Resources {
				kindOf := func(k *discoveredKind) schema.GroupVersionKind {
					gvk := schema.GroupVersionKind{Group: group.Group, Version: dv.Version, Kind: k.Kind}
					if k.Group != "" || k.Version != "" {
						gvk.Group, gvk.Version = k.Group, k.Version
					}
					return gvk
				}
				gvk := kindOf(dr.ResponseKind)
				if err := addKind(gvk); err != nil {
					return nil, err
				}
				r := Resource{
					Resource: dr.Resource, Kind: gvk.Kind, Singular: dr.Singular, Namespaced: dr.Scope == "Namespaced",
					Verbs: dr.Verbs, ShortNames: dr.ShortNames, Categories: dr.Categories,
				}
				list := gvk
				list.Kind += "List"
				if s.Recognizes(list) {
					r.ListKind = list.Kind
					if err := addKind(list); err != nil {
						return nil, err
					}
				}
				for _, sub := range dr.Subresources {
					k := kindOf(sub.ResponseKind)
					if err := addKind(k); err != nil {
						return nil, err
					}
					r.Subresources = append(r.Subresources, Subresource{Name: sub.Subresource, Kind: GVK{k.Group, k.Version, k.Kind}, Verbs: sub.Verbs})
				}
				r.Storage.Prefix = dr.Resource
				if p, ok := prefixes[group.Group+"/"+dr.Resource]; ok {
					r.Storage.Prefix = p
				} else if group.Group == "apiregistration.k8s.io" || group.Group == "apiextensions.k8s.io" {
					// Their servers' storage factories prefix resources with their group.
					r.Storage.Prefix = group.Group + "/" + dr.Resource
				}
				if hash := hashes[dr.Resource]; hash != "" {
					sv, err := storageVersion(s, gvk.Kind, hash)
					if err != nil {
						return nil, fmt.Errorf("%s: %w", gv, err)
					}
					r.Storage.Group, r.Storage.Version = sv.Group, sv.Version
				}
				dir, err := findRegistryDir(dirs, group.Group, dr.Resource, dr.Singular)
				if err != nil {
					return nil, err
				}
				if r.Strategy, err = strategyFacts(dir); err != nil {
					return nil, err
				}
				version.Resources = append(version.Resources, r)
			}
			group.Versions = append(group.Versions, version)
		}
		table.Groups = append(table.Groups, group)
	}
	return table, nil
}
