#!/bin/bash
# Produces the Zed reference for plugin.test.ts on a private stack of its own, leaving the shared
# anchors alone: the conformance harness (../shared/conformance: Keystone, PostgreSQL, OVN NB/SB +
# northd + the fake gateway chassis, neutron-server Zed with ML2/OVN and Keystone auth) started under
# a fresh temporary CONFORM directory on free ports, then plugin-zed-run.sh against it (tempest told
# plugin-extensions.txt), then everything stopped and removed.
#
#   test/conformance/plugin-zed-private.sh [REGEX]   # default: plugin.test.ts CI_MODULES
#   KEEP=1 ...                                       # keep the stack (and its dir) for a second run
#
# Results: $OUT (default /tmp/plugin-zed-results/<label>): ntp.txt, ntp.log, summary.txt.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
export CONFORMANCE=${CONFORMANCE:-$(cd "$HERE/../../.." && pwd)/shared/conformance}
[ -f "$CONFORMANCE/neutron-start.sh" ] || CONFORMANCE=/work/shared/conformance
CI_REGEX=$(sed -n "/^const CI_MODULES = \[/,/^\];/p" "$HERE/plugin.test.ts" | sed -n "s/^  '\(.*\)',$/\1/p" |
  sed 's/\./\\./g' | paste -sd'|' -)
REGEX=${1:-"^neutron_tempest_plugin\\.api\\.($CI_REGEX)\\."}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

export CONFORM=${CONFORM:-$(mktemp -d /tmp/plugin-zed-XXXXXX)}
chmod 755 "$CONFORM"
if [ ! -f "$CONFORM/ports" ]; then
  echo "KEYSTONE_PORT=$(free_port) NEUTRON_PORT=$(free_port) PG_PORT=$(free_port)" \
    "OVN_NB_PORT=$(free_port) OVN_SB_PORT=$(free_port)" >"$CONFORM/ports"
fi
# shellcheck disable=SC2046
export $(cat "$CONFORM/ports")
export KEYSTONE_URL=http://127.0.0.1:$KEYSTONE_PORT NETWORK_URL=http://127.0.0.1:$NEUTRON_PORT
export NEUTRON_API_WORKERS=${NEUTRON_API_WORKERS:-2}
stop() {
  [ "${KEEP:-0}" = 1 ] && { echo "kept: CONFORM=$CONFORM"; return; }
  PURGE=1 "$CONFORMANCE/neutron-stop.sh"
  PURGE=1 "$CONFORMANCE/keystone-stop.sh"
  rm -rf "$CONFORM"
}
trap stop EXIT
"$CONFORMANCE/keystone-start.sh" >"$CONFORM/keystone-start.log" 2>&1 || { tail "$CONFORM/keystone-start.log"; exit 1; }
"$CONFORMANCE/neutron-start.sh" >"$CONFORM/neutron-start.log" 2>&1 || { tail "$CONFORM/neutron-start.log"; exit 1; }
tail -1 "$CONFORM/neutron-start.log"
LABEL=${LABEL:-private} "$HERE/plugin-zed-run.sh" "$REGEX"
OUT=${OUT:-/tmp/plugin-zed-results/${LABEL:-private}}
mkdir -p "$OUT"
cp "$CONFORM/tempest/results/${LABEL:-private}/"{ntp.txt,ntp.log,ntp.list,summary.txt,tempest.conf} "$OUT/" 2>/dev/null
echo "results in $OUT"
