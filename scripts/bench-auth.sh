#!/usr/bin/env bash
# The cost of authentication and authorization (issue 18's bar: within 10%): kapi-bench's crud
# scenario (S1 creates/s, S2 GETs/s) against the same build over HTTPS twice per round —
#   open:   no --client-ca-file, --authorization-mode=AlwaysAllow (kube's default; no authentication)
#   secure: --client-ca-file + --authorization-mode=RBAC, the client a certificate user outside
#           system:masters bound to cluster-admin by a ClusterRoleBinding (the RBAC path runs)
# usage: scripts/bench-auth.sh [ROUNDS] [extra kapi-bench args...]   (results in $OUT, default /tmp/kapi-bench-auth)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
ROUNDS=${1:-2}
shift || true
OUT=${OUT:-/tmp/kapi-bench-auth}
rm -rf "$OUT"; mkdir -p "$OUT/certs"
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
ETCD_PORT=$(free_port); PEER_PORT=$(free_port)
etcd --data-dir "$OUT/etcd" --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$PEER_PORT" \
  --initial-cluster "default=http://127.0.0.1:$PEER_PORT" --quota-backend-bytes=8589934592 >"$OUT/etcd.log" 2>&1 &
ETCD_PID=$!
SERVER_PID=""
trap 'kill $SERVER_PID $ETCD_PID 2>/dev/null || true' EXIT
C=$OUT/certs
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$C/ca.key" -out "$C/ca.crt" -days 2 -subj "/CN=bench-ca" 2>/dev/null
client() { # NAME SUBJECT
  openssl req -newkey rsa:2048 -nodes -keyout "$C/$1.key" -out "$C/$1.csr" -subj "$2" 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\n' >"$C/$1.ext"
  openssl x509 -req -in "$C/$1.csr" -CA "$C/ca.crt" -CAkey "$C/ca.key" -CAcreateserial -out "$C/$1.crt" -days 2 -extfile "$C/$1.ext" 2>/dev/null
}
client admin "/O=system:masters/CN=bench-admin"
client user "/CN=bench-user"
kubeconfig() { # FILE PORT [CERT]
  { echo "apiVersion: v1"; echo "kind: Config"
    echo "clusters: [{name: k, cluster: {server: 'https://127.0.0.1:$2', insecure-skip-tls-verify: true}}]"
    if [ -n "${3:-}" ]; then echo "users: [{name: u, user: {client-certificate: '$C/$3.crt', client-key: '$C/$3.key'}}]"; else echo "users: [{name: u, user: {}}]"; fi
    echo "contexts: [{name: k, context: {cluster: k, user: u}}]"; echo "current-context: k"; } >"$1"
}
start() { # MODE PORT
  local args=(--etcd-servers="http://127.0.0.1:$ETCD_PORT" --etcd-prefix="/bench-$1-$RANDOM" --bind-address=127.0.0.1 --secure-port="$2" --cert-dir="$OUT/serving")
  [ "$1" = secure ] && args+=(--client-ca-file="$C/ca.crt" --authorization-mode=RBAC)
  ${PIN:-} node "$ROOT/packages/apiserver/dist/bin.js" "${args[@]}" >"$OUT/server-$1.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 600); do [ "$(curl -ks "https://127.0.0.1:$2/readyz" 2>/dev/null)" = ok ] && return 0; sleep 0.1; done
  echo "server $1 not ready" >&2; exit 1
}
for round in $(seq 1 "$ROUNDS"); do
  for mode in open secure; do
    PORT=$(free_port)
    start "$mode" "$PORT"
    if [ "$mode" = secure ]; then
      kubeconfig "$OUT/admin.kubeconfig" "$PORT" admin
      kubectl --kubeconfig "$OUT/admin.kubeconfig" create clusterrolebinding bench-user --clusterrole=cluster-admin --user=bench-user >/dev/null
      kubeconfig "$OUT/k.kubeconfig" "$PORT" user
    else
      kubeconfig "$OUT/k.kubeconfig" "$PORT"
    fi
    echo "== round $round: $mode" >&2
    node "$ROOT/packages/bench/dist/bin.js" suite --scenarios crud --concurrency 16 --object-sizes 1024 --duration 5 --warmup 2 \
      --kubeconfig "$OUT/k.kubeconfig" --server-pid "$SERVER_PID" --etcd-servers "http://127.0.0.1:$ETCD_PORT" --no-pin --out "$OUT/$mode-$round" "$@" >"$OUT/bench-$mode-$round.log" 2>&1
    kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""
  done
done
grep -h -E "S1|S2" "$OUT"/*/*.md | head -40
