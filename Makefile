# kapi — the two commands that matter: `make run` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := build
NODE_BIN := node_modules/.bin
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup build bundle lint test test-only run bench bench-quick clean proto schemas discovery bootstrap-policy feature-gates e2e e2e-faults fuzz e2e-control-plane

# The Python the e2e suites run (Debian's, where python3-kubernetes installs; `KAPI_PYTHON` overrides).
KAPI_PYTHON ?= /usr/bin/python3

# Idempotent: `npm ci` when node_modules is missing or older than package-lock.json; Debian's
# etcd-server when etcd is not on PATH; Debian's python3-kubernetes when $(KAPI_PYTHON) cannot
# import kubernetes; reports whether kubectl (used by the e2e tests) exists.
setup:
	@if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then \
		echo "setup: npm ci"; npm ci --no-audit --no-fund; \
	fi
	@if ! command -v etcd >/dev/null 2>&1; then \
		echo "setup: etcd not on PATH; installing Debian's etcd-server"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq etcd-server >/dev/null; \
	fi
	@command -v etcd >/dev/null 2>&1 || { echo "setup: etcd is still missing; install etcd 3.4+ and put it on PATH" >&2; exit 1; }
	@echo "setup: $$(etcd --version 2>/dev/null | head -n1)"
	@if ! $(KAPI_PYTHON) -c 'import kubernetes' >/dev/null 2>&1; then \
		echo "setup: the Python kubernetes client is missing; installing Debian's python3-kubernetes"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-kubernetes >/dev/null; \
	fi
	@$(KAPI_PYTHON) -c 'import kubernetes' >/dev/null 2>&1 || { echo "setup: $(KAPI_PYTHON) cannot import kubernetes; install python3-kubernetes or set KAPI_PYTHON" >&2; exit 1; }
	@echo "setup: python kubernetes $$($(KAPI_PYTHON) -c 'import kubernetes; print(kubernetes.__version__)')"
	@if [ -n "$$KUBECTL" ] && [ -x "$$KUBECTL" ] || command -v kubectl >/dev/null 2>&1; then \
		echo "setup: kubectl $$($${KUBECTL:-kubectl} version --client 2>/dev/null | head -n1 | sed 's/^Client Version: //')"; \
	else \
		echo "setup: kubectl NOT found — the e2e tests drive kubectl 1.32 and will fail without it (set KUBECTL=/path/to/kubectl)"; \
	fi

build: setup
	$(NODE_BIN)/tsc -b
	@$(MAKE) --no-print-directory bundle

# The server in one file (packages/apiserver/dist/bundle/kapi-apiserver.cjs, esbuild), which
# packages/apiserver/dist/bundled.js — `make run`, the image, kapi-bench — starts with a V8
# code cache: about a second less CPU to start than dist/bin.js (scripts/bundle-apiserver.mjs).
bundle:
	node scripts/bundle-apiserver.mjs

lint: setup build
	$(NODE_BIN)/eslint .

# Every test: unit, storage conformance and HTTP integration against a real etcd the tests
# start on free ports, and end-to-end tests with the installed kubectl.
test: setup build lint
	@start=$$(date +%s); node scripts/run-tests.mjs; status=$$?; \
		echo "make test: tests took $$(( $$(date +%s) - start )) s (exit $$status)"; exit $$status

# The client e2e suites (kubectl, client-node, client-go, Python) against a single server and
# against the local HA cluster through kapi-lb (e2e/src/suites; also part of `make test`).
e2e: setup build
	node scripts/run-tests.mjs e2e/dist/suites

# The fault suite's full form (three rounds of every fault in a seeded order, longer outages);
# `make test` runs the short form (each fault once). SEEDS=N runs it N times, each with a fresh
# seed (printed); SEED=S replays one run.
SEEDS ?= 1
e2e-faults: setup build
	KAPI_FAULTS=full KAPI_FAULTS_RUNS=$(SEEDS) KAPI_FAULTS_SEED=$(SEED) node scripts/run-tests.mjs e2e/dist/faults

# kube-controller-manager and kube-scheduler v1.32.13 and kwok v0.8.0, unchanged, on two kapi
# replicas behind kapi-lb with 10 kwok nodes: Deployments, Services, Jobs, StatefulSets,
# DaemonSets, drains, namespace deletion, GC, a replica killed (e2e/src/control-plane); then
# `kwokctl create cluster --runtime binary` with kapi as its kube-apiserver (kwokctl.e2e.ts). The
# binaries (and kwokctl v0.8.0) are built once into $KAPI_REF_BIN (default ~/.cache/kapi-ref/bin) by
# e2e/control-plane/build-binaries.sh; a failed run keeps every process's log under .data/e2e-control-plane/.
e2e-control-plane: setup build
	@set -o pipefail; start=$$(date +%s); bin=$$(bash e2e/control-plane/build-binaries.sh | tail -n1) || exit 1; \
		echo "e2e-control-plane: binaries ready in $$(( $$(date +%s) - start )) s ($$bin)"; \
		KAPI_REF_BIN=$$bin node --test --test-concurrency=1 --test-reporter=spec e2e/dist/control-plane/control-plane.e2e.js e2e/dist/control-plane/kwokctl.e2e.js; status=$$?; \
		echo "make e2e-control-plane: took $$(( $$(date +%s) - start )) s (exit $$status)"; exit $$status

# The fuzz suite's long form: FUZZ_SECONDS of requests (default 600) against one server on a
# real etcd, then the requests sent, the shapes seen and any violation with its replay.
# `make fuzz FUZZ_SEED=<seed>` repeats a run; `make fuzz FUZZ_SEED=<seed> FUZZ_PATH=<path>`
# sends the one case a violation names. `make test` runs the short form (45 s).
FUZZ_SECONDS ?= 600
fuzz: setup build
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_SEED=$(FUZZ_SEED) FUZZ_PATH=$(FUZZ_PATH) FUZZ_STREAMS=$(FUZZ_STREAMS) \
		node --test --test-reporter=spec e2e/dist/fuzz/fuzz.test.js

# Tests only, on whatever is built (e.g. `make test-only FILTER=e2e`).
test-only:
	node scripts/run-tests.mjs $(FILTER)

# Local etcd (.data/etcd) + one kapi-apiserver on https://127.0.0.1:6443; writes .data/kubeconfig.
run: setup build
	bash scripts/run-local.sh

# Local HA cluster in the background (3 etcd members, 3 kapi replicas, kapi-lb on
# https://127.0.0.1:16443); writes .data/cluster/kubeconfig. More: deploy/cluster.sh, deploy/README.md.
.PHONY: cluster cluster-down
cluster: setup build
	bash deploy/cluster.sh up

# Stops every process of `make cluster` (data stays in .data/cluster; `deploy/cluster.sh down --purge` deletes it).
cluster-down:
	bash deploy/cluster.sh down

# Benchmarks: results go to bench/results/<date>-side-by-side.json and .md (kapi and
# kube-apiserver v1.32.13 side by side, each on a fresh etcd, 2 rounds in alternating order;
# KAPI_BENCH_AGAINST=kapi runs kapi alone, reported in bench/results/<date>.json and .md).
# `make bench` builds the Go binaries into the cache first (e2e/control-plane/build-binaries.sh
# kube-apiserver, once) and also runs the density scenario (100 kwok nodes, 3,000 pods) when
# they are cached; `make bench-quick` uses kube-apiserver when cached and otherwise runs kapi
# alone, saying so in the report.
KAPI_REF_BIN ?= $(HOME)/.cache/kapi-ref/bin
KAPI_BENCH_AGAINST ?= kapi,kube
bench: setup build
	@case "$(KAPI_BENCH_AGAINST)" in *kube*) [ -n "$$KAPI_KUBE_APISERVER" ] || KAPI_REF_BIN=$(KAPI_REF_BIN) bash e2e/control-plane/build-binaries.sh kube-apiserver >/dev/null || exit 1 ;; esac
	KAPI_REF_BIN=$(KAPI_REF_BIN) node packages/bench/dist/bin.js suite --against $(KAPI_BENCH_AGAINST)
	@if [ -x "$(KAPI_REF_BIN)/kube-apiserver" ] && [ -x "$(KAPI_REF_BIN)/kube-controller-manager" ] && [ -x "$(KAPI_REF_BIN)/kube-scheduler" ] && [ -x "$(KAPI_REF_BIN)/kwok" ]; then \
		KAPI_REF_BIN=$(KAPI_REF_BIN) node packages/bench/dist/bin.js density; \
	else echo "bench: density skipped: the Go binaries are not in $(KAPI_REF_BIN) (e2e/control-plane/build-binaries.sh kube-apiserver)"; fi

bench-quick: setup build
	node packages/bench/dist/bin.js suite --quick --against $(KAPI_BENCH_AGAINST)

# The generated catalogue of kube 1.32's built-in API: packages/catalog/generated/ (committed,
# never edited by hand). `make schemas` rewrites it from the Kubernetes 1.32 Go modules
# (scripts/catalog-gen; needs Go, downloads the modules when the cache lacks them) and the
# recorded discovery, then runs `make proto`; `make proto` compiles its .proto sources into the
# protobufjs descriptor; `make discovery` records discovery.json from a real kube-apiserver
# ($$KAPI_KUBE_APISERVER, default /root/.cache/kapi-ref/bin/kube-apiserver).
schemas: setup
	bash scripts/generate-catalog.sh

# kube's bootstrap RBAC roles and bindings (needs the k8s.io/kubernetes v1.32.13 module; reuses its go.sum).
bootstrap-policy:
	cd scripts/bootstrap-policy-gen && GOFLAGS=-mod=mod go run . > ../../packages/catalog/generated/bootstrap-policy.json
	cd scripts/bootstrap-policy-gen && GOFLAGS=-mod=mod go run . flowcontrol > ../../packages/catalog/generated/flowcontrol-bootstrap.json

# kube-apiserver 1.32's feature gate table (name, default, stage, locked) for --feature-gates
# (needs the k8s.io/kubernetes v1.32.13 module; reuses bootstrap-policy-gen's go.sum).
feature-gates:
	cd scripts/feature-gates-gen && GOFLAGS=-mod=mod go run . > ../../packages/catalog/generated/feature-gates.json

proto: setup
	bash scripts/generate-proto.sh

discovery: setup build
	node e2e/dist/reference/capture-discovery.js

clean:
	rm -rf packages/*/dist e2e/dist .data
