#!/usr/bin/env bash
# The local HA cluster (`make cluster`): see deploy/cluster.mjs and deploy/README.md.
#   deploy/cluster.sh up | down [--purge] | status | info | kill <name> [SIGNAL]
#   deploy/cluster.sh stop|start|restart <name> | partition <etcd-N> | heal [<etcd-N>]
set -euo pipefail
exec node "$(dirname "$0")/cluster.mjs" "$@"
