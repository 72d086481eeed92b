#!/usr/bin/env bash
# `make run`: one local etcd (data kept under .data/etcd across runs) and one kapi-apiserver
# in the foreground, plus a kubeconfig at .data/kubeconfig. Ctrl-C stops both.
#
# Secure as kube-apiserver with kubeadm's flags: a local CA (made once, kept in the cert dir)
# signs the serving certificate and an admin client certificate (CN=kapi-admin,
# O=system:masters); kapi runs with --client-ca-file, --authorization-mode=RBAC and
# kube's default --anonymous-auth (anonymous requests are system:anonymous, which RBAC lets
# read only /healthz, /version and the like). The kubeconfig uses the client certificate.
# Service account tokens are signed with sa.key (made once, kept in the cert dir); the local
# CA is published to every namespace as kube-root-ca.crt (kube-controller-manager's --root-ca-file).
#
# Environment overrides (defaults in brackets):
#   KAPI_DATA_DIR [.data]   ETCD_CLIENT_PORT [2379]   ETCD_PEER_PORT [2380]
#   KAPI_SECURE_PORT [6443] KAPI_BIND_ADDRESS [127.0.0.1]   KAPI_CERT_DIR [$KAPI_DATA_DIR/certs]
#   KAPI_ETCD_PREFIX [/registry]   ETCD_BIN [etcd]
# Extra arguments are passed to kapi-apiserver, e.g. `bash scripts/run-local.sh --insecure-port=8080`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

DATA_DIR=${KAPI_DATA_DIR:-.data}
mkdir -p "$DATA_DIR"
DATA_DIR=$(cd "$DATA_DIR" && pwd)
ETCD_CLIENT_PORT=${ETCD_CLIENT_PORT:-2379}
ETCD_PEER_PORT=${ETCD_PEER_PORT:-2380}
SECURE_PORT=${KAPI_SECURE_PORT:-6443}
BIND_ADDRESS=${KAPI_BIND_ADDRESS:-127.0.0.1}
CERT_DIR=${KAPI_CERT_DIR:-$DATA_DIR/certs}
ETCD_PREFIX=${KAPI_ETCD_PREFIX:-/registry}
ETCD_BIN=${ETCD_BIN:-etcd}
APISERVER="$ROOT/packages/apiserver/dist/bundled.js"
KUBECONFIG_FILE="$DATA_DIR/kubeconfig"
ETCD_URL="http://127.0.0.1:$ETCD_CLIENT_PORT"
SERVER_URL="https://127.0.0.1:$SECURE_PORT"

say() { printf '[run-local] %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

command -v "$ETCD_BIN" >/dev/null 2>&1 || die "etcd not found (run \`make setup\`)"
command -v curl >/dev/null 2>&1 || die "curl not found"
[ -f "$APISERVER" ] || die "$APISERVER is missing (run \`make build\`)"

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for port in "$ETCD_CLIENT_PORT" "$ETCD_PEER_PORT" "$SECURE_PORT"; do
  port_in_use "$port" && die "port $port on 127.0.0.1 is already in use (another \`make run\`? override with ETCD_CLIENT_PORT / ETCD_PEER_PORT / KAPI_SECURE_PORT)"
done

ETCD_PID=""
SERVER_PID=""
cleanup() {
  trap - INT TERM EXIT
  [ -n "$SERVER_PID" ] && kill -TERM "$SERVER_PID" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && wait "$SERVER_PID" 2>/dev/null || true
  [ -n "$ETCD_PID" ] && kill -TERM "$ETCD_PID" 2>/dev/null || true
  [ -n "$ETCD_PID" ] && wait "$ETCD_PID" 2>/dev/null || true
  say "stopped (data kept in $DATA_DIR/etcd)"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# etcd: a single member; an existing data dir is reused (the --initial-* flags are then ignored).
# Progress notifications every 5 s (etcd's default is 10 min) keep the watch caches of quiet
# resources current, so bookmarks carry fresh resourceVersions (kube's KEP-3157 assumes ~5 s).
mkdir -p "$DATA_DIR/etcd"
chmod 700 "$DATA_DIR/etcd"
say "starting etcd on $ETCD_URL (data $DATA_DIR/etcd, log $DATA_DIR/etcd.log)"
"$ETCD_BIN" --name=kapi-local --data-dir="$DATA_DIR/etcd" \
  --listen-client-urls="$ETCD_URL" --advertise-client-urls="$ETCD_URL" \
  --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster="kapi-local=http://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster-state=new \
  --experimental-watch-progress-notify-interval=5s \
  --logger=zap --log-outputs="$DATA_DIR/etcd.log" >/dev/null 2>&1 &
ETCD_PID=$!
for _ in $(seq 1 200); do
  curl -fsS "$ETCD_URL/health" 2>/dev/null | grep -q '"health":"true"' && break
  kill -0 "$ETCD_PID" 2>/dev/null || die "etcd exited; see $DATA_DIR/etcd.log"
  sleep 0.1
done
curl -fsS "$ETCD_URL/health" 2>/dev/null | grep -q '"health":"true"' || die "etcd not healthy after 20 s; see $DATA_DIR/etcd.log"

mkdir -p "$CERT_DIR"
chmod 700 "$CERT_DIR"
command -v openssl >/dev/null 2>&1 || die "openssl not found (needed for the local CA)"
# The local CA, the serving certificate (for 127.0.0.1, localhost and the bind address) and
# the admin client certificate: made once, reused while the CA lasts.
if [ ! -f "$CERT_DIR/ca.crt" ] || [ ! -f "$CERT_DIR/ca.key" ]; then
  say "creating a local CA in $CERT_DIR"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$CERT_DIR/ca.key" -out "$CERT_DIR/ca.crt" \
    -days 3650 -subj "/CN=kapi-local-ca" 2>/dev/null
  rm -f "$CERT_DIR/serving.crt" "$CERT_DIR/admin.crt"
fi
sign() { # sign NAME SUBJECT EXTENSIONS
  openssl req -newkey rsa:2048 -nodes -keyout "$CERT_DIR/$1.key" -out "$CERT_DIR/$1.csr" -subj "$2" 2>/dev/null
  printf '%b\n' "$3" >"$CERT_DIR/$1.ext"
  openssl x509 -req -in "$CERT_DIR/$1.csr" -CA "$CERT_DIR/ca.crt" -CAkey "$CERT_DIR/ca.key" -CAcreateserial \
    -out "$CERT_DIR/$1.crt" -days 365 -extfile "$CERT_DIR/$1.ext" 2>/dev/null
  rm -f "$CERT_DIR/$1.csr" "$CERT_DIR/$1.ext"
}
SAN="DNS:localhost,IP:127.0.0.1"
case "$BIND_ADDRESS" in 0.0.0.0|127.0.0.1|::) ;; *) SAN="$SAN,IP:$BIND_ADDRESS" ;; esac
if [ ! -f "$CERT_DIR/serving.crt" ] || ! grep -qx "$SAN" "$CERT_DIR/serving.san" 2>/dev/null; then
  sign serving "/CN=kapi-apiserver" "subjectAltName=$SAN\nextendedKeyUsage=serverAuth"
  echo "$SAN" >"$CERT_DIR/serving.san"
fi
[ -f "$CERT_DIR/admin.crt" ] || sign admin "/O=system:masters/CN=kapi-admin" "extendedKeyUsage=clientAuth"
# Service account tokens (kubeadm's sa.key/sa.pub): `kubectl create token`, pods' kube-api-access volumes.
if [ ! -f "$CERT_DIR/sa.key" ] || [ ! -f "$CERT_DIR/sa.pub" ]; then
  openssl genrsa -out "$CERT_DIR/sa.key" 2048 2>/dev/null
  openssl rsa -in "$CERT_DIR/sa.key" -pubout -out "$CERT_DIR/sa.pub" 2>/dev/null
fi

say "starting kapi-apiserver on $SERVER_URL (certs in $CERT_DIR; RBAC, client certificates from ca.crt, service account tokens)"
node "$APISERVER" --etcd-servers="$ETCD_URL" --etcd-prefix="$ETCD_PREFIX" \
  --secure-port="$SECURE_PORT" --bind-address="$BIND_ADDRESS" --cert-dir="$CERT_DIR" \
  --tls-cert-file="$CERT_DIR/serving.crt" --tls-private-key-file="$CERT_DIR/serving.key" \
  --client-ca-file="$CERT_DIR/ca.crt" --authorization-mode=RBAC \
  --service-account-issuer=https://kubernetes.default.svc \
  --service-account-key-file="$CERT_DIR/sa.pub" --service-account-signing-key-file="$CERT_DIR/sa.key" \
  --root-ca-file="$CERT_DIR/ca.crt" "$@" &
SERVER_PID=$!
ready=""
for _ in $(seq 1 600); do
  if [ "$(curl -ks --max-time 2 "$SERVER_URL/readyz" 2>/dev/null)" = "ok" ]; then ready=1; break; fi
  kill -0 "$SERVER_PID" 2>/dev/null || die "kapi-apiserver exited"
  sleep 0.1
done
[ -n "$ready" ] || die "kapi-apiserver not ready after 60 s"

umask 077
cat >"$KUBECONFIG_FILE" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: kapi
  cluster:
    server: $SERVER_URL
    certificate-authority: $CERT_DIR/ca.crt
users:
- name: kapi-admin
  user:
    client-certificate: $CERT_DIR/admin.crt
    client-key: $CERT_DIR/admin.key
contexts:
- name: kapi
  context:
    cluster: kapi
    user: kapi-admin
current-context: kapi
preferences: {}
KUBECONFIG

REL_KUBECONFIG=${KUBECONFIG_FILE#"$ROOT"/}
cat >&2 <<EOF_USAGE

  kapi is ready at $SERVER_URL (etcd $ETCD_URL, prefix $ETCD_PREFIX)

    kubectl --kubeconfig $REL_KUBECONFIG get ns
    export KUBECONFIG=$KUBECONFIG_FILE   # then plain \`kubectl ...\`

  Ctrl-C stops kapi-apiserver and etcd; data stays in $DATA_DIR/etcd (\`make clean\` removes it).

EOF_USAGE

set +e
wait "$SERVER_PID"
status=$?
SERVER_PID=""
say "kapi-apiserver exited with status $status"
exit "$status"
