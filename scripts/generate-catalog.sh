#!/usr/bin/env bash
# `make schemas`: regenerates packages/catalog/generated/ (all but discovery.json, which
# `make discovery` records from a real kube-apiserver) with scripts/catalog-gen from the
# Kubernetes 1.32 Go modules (downloaded into the module cache when missing), then the
# protobuf descriptor (`make proto`). Deterministic: a second run changes nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
start=$(date +%s)
(
  cd scripts/catalog-gen
  go mod download
  kube=$(go mod download -json k8s.io/kubernetes@v1.32.13 | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$kube" ] || { echo "generate-catalog: cannot locate k8s.io/kubernetes@v1.32.13 in the module cache" >&2; exit 1; }
  go run . -out "$root/packages/catalog/generated" -kube "$kube"
)
bash scripts/generate-proto.sh
echo "generate-catalog: packages/catalog/generated/ in $(( $(date +%s) - start )) s"
