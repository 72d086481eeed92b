// Command go-yaml-diff is the Go half of run.mjs's differential test of kapi's YAML encoder:
// it reads a JSON array of values (argument 1) and writes, as a JSON array (argument 2), what
// sigs.k8s.io/yaml v1.4.0's Marshal (kube-apiserver's YAML) gives for each: the text, or the error.
package main

import (
	"encoding/json"
	"os"

	"sigs.k8s.io/yaml"
)

type result struct {
	Out string `json:"out"`
	Err string `json:"err,omitempty"`
}

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	var cases []interface{}
	if err := json.Unmarshal(data, &cases); err != nil {
		panic(err)
	}
	results := make([]result, len(cases))
	for i, c := range cases {
		out, err := yaml.Marshal(c)
		results[i].Out = string(out)
		if err != nil {
			results[i].Err = err.Error()
		}
	}
	encoded, err := json.Marshal(results)
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(os.Args[2], encoded, 0o644); err != nil {
		panic(err)
	}
}
