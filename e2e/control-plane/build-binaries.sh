#!/usr/bin/env bash
# The real control-plane binaries `make e2e-control-plane` runs on kapi, built once from the
# published Go modules into a cache directory that later runs reuse:
#
#   kube-controller-manager, kube-scheduler  k8s.io/kubernetes v1.32.13 (go.mod/go.sum beside
#                                            this script: kubernetes' v0.0.0 staging modules are
#                                            replaced by v0.32.13, except k8s.io/endpointslice,
#                                            which the module proxy only has at v0.32.12)
#   kwok, kwokctl                            sigs.k8s.io/kwok v0.8.0, cmd/kwok and cmd/kwokctl
#
# usage: e2e/control-plane/build-binaries.sh [kube-apiserver]   prints the cache directory on its last line
#   kube-apiserver: build it too (kapi-bench density's baseline; the e2e does not need it)
#   env: KAPI_REF_BIN   the cache directory (default ~/.cache/kapi-ref/bin)
#        KAPI_REF_WORK  the scratch module directory (default ~/.cache/kapi-ref/build)
#        GOFLAGS/GOPROXY/GOCACHE/GOMODCACHE are passed to go as usual.
# A binary already in the cache that reports the pinned version is kept; delete it to rebuild.
set -euo pipefail

K8S_VERSION=v1.32.13
KWOK_VERSION=v0.8.0
BIN_DIR=${KAPI_REF_BIN:-$HOME/.cache/kapi-ref/bin}
WORK_DIR=${KAPI_REF_WORK:-$HOME/.cache/kapi-ref/build}
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$BIN_DIR"
BIN_DIR=$(cd "$BIN_DIR" && pwd)

# The pinned module graph must be the one this script says it builds.
grep -q "^require k8s.io/kubernetes $K8S_VERSION\$" "$SCRIPT_DIR/go.mod" ||
  { echo "build-binaries: $SCRIPT_DIR/go.mod does not require k8s.io/kubernetes $K8S_VERSION" >&2; exit 1; }

has() { # has BINARY EXPECTED-VERSION-SUBSTRING
  [ -x "$BIN_DIR/$1" ] && "$BIN_DIR/$1" --version 2>/dev/null | grep -qF "$2"
}

need_go() {
  command -v go >/dev/null 2>&1 || { echo "build-binaries: go is not on PATH (needed to build $1 into $BIN_DIR)" >&2; exit 1; }
}

KUBE=()
for b in kube-controller-manager kube-scheduler "$@"; do
  case "$b" in kube-controller-manager | kube-scheduler | kube-apiserver) ;; *) echo "build-binaries: unknown binary $b" >&2; exit 2 ;; esac
  has "$b" "Kubernetes $K8S_VERSION" || KUBE+=("$b")
done

if [ ${#KUBE[@]} -gt 0 ]; then
  need_go "${KUBE[*]}"
  mkdir -p "$WORK_DIR"
  cp "$SCRIPT_DIR/go.mod" "$SCRIPT_DIR/go.sum" "$WORK_DIR/"
  MINOR=$(echo "$K8S_VERSION" | cut -d. -f2)
  BUILD_DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  # Version stamping as kubernetes' hack/lib/version.sh does, so --version and /version are right.
  LDFLAGS="-s -w" # no symbol table or DWARF: a shorter link, a smaller binary
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    LDFLAGS+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$MINOR"
    LDFLAGS+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$BUILD_DATE"
  done
  for b in "${KUBE[@]}"; do
    t0=$(date +%s)
    echo "build-binaries: building $b $K8S_VERSION (cold: download + compile take tens of minutes on 2 cores)" >&2
    (cd "$WORK_DIR" && CGO_ENABLED=0 go build -trimpath -ldflags "$LDFLAGS" -o "$BIN_DIR/$b.tmp" "k8s.io/kubernetes/cmd/$b")
    mv "$BIN_DIR/$b.tmp" "$BIN_DIR/$b"
    echo "build-binaries: built $BIN_DIR/$b in $(( $(date +%s) - t0 )) s" >&2
  done
fi

for b in kwok kwokctl; do
  has "$b" "$b version $KWOK_VERSION" && continue
  need_go "$b"
  t0=$(date +%s)
  tmp=$(mktemp -d)
  echo "build-binaries: building $b $KWOK_VERSION" >&2
  GOBIN=$tmp CGO_ENABLED=0 go install "sigs.k8s.io/kwok/cmd/$b@$KWOK_VERSION"
  mv "$tmp/$b" "$BIN_DIR/$b"
  rmdir "$tmp"
  echo "build-binaries: built $BIN_DIR/$b in $(( $(date +%s) - t0 )) s" >&2
done

echo "$BIN_DIR"
