#!/bin/bash
# How results-neutron-zed-plugin.txt was produced: neutron-tempest-plugin's API tests against the
# real Neutron Zed (ML2/OVN, Keystone auth) of ../shared/conformance, with tempest told the
# extensions that both Neutron and octonet offer (the same list octonet's run gets, see
# test/fixtures/tempest.ts PLUGIN_EXTENSIONS), so both runs answer the same questions.
#
#   ../shared/conformance/keystone-start.sh && ../shared/conformance/neutron-start.sh
#   test/conformance/plugin-zed-run.sh [REGEX]      # default ^neutron_tempest_plugin\.api\.
#
# Results in /tmp/conform/tempest/results/plugin-zed/ (ntp.txt: `<test id> pass|fail|skip`).
set -uo pipefail
CONF=${CONFORMANCE:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/conformance}
. "$CONF/common.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
REGEX=${1:-'^neutron_tempest_plugin\.api\.'}
TARGET=${TARGET:-$NETWORK_URL}
LABEL=${LABEL:-plugin-zed}
WS=$CONFORM/tempest/workspace-$LABEL
RES=$CONFORM/tempest/results/$LABEL
mkdir -p "$WS/etc" "$WS/logs" "$WS/lock" "$RES"

KEYSTONE_URL=$KEYSTONE_URL ADMIN_PASSWORD=$ADMIN_PASSWORD REGION=$REGION \
  NETWORK_URL=$TARGET python3 "$CONF/keystone_setup.py" endpoint || exit 1
TEMPEST_DIR=$(python3 -c 'import os, tempest; print(os.path.dirname(tempest.__file__))')
cat >"$WS/.stestr.conf" <<EOF
[DEFAULT]
test_path=$TEMPEST_DIR/test_discover
top_dir=$(dirname "$TEMPEST_DIR")
group_regex=([^\.]*\.)*
EOF
KEYSTONE_URL=$KEYSTONE_URL ADMIN_PASSWORD=$ADMIN_PASSWORD REGION=$REGION \
  TARGET_URL=$TARGET WORKSPACE=$WS python3 "$CONF/tempest_conf.py" "$WS/etc/tempest.conf" || exit 1
# The extensions both offer: Neutron's list (what tempest_conf.py wrote) minus those octonet lacks.
extensions=$(sed -n 's/^api_extensions = //p' "$WS/etc/tempest.conf" | tr ',' '\n' |
  grep -Fxf "$HERE/plugin-extensions.txt" | paste -sd, -)
sed -i "s/^api_extensions = .*/api_extensions = $extensions/" "$WS/etc/tempest.conf"
cp "$WS/etc/tempest.conf" "$RES/tempest.conf"

cd "$WS"
[ -d .stestr ] || stestr init >/dev/null
export PYTHONPATH=$CONF/pyhooks${PYTHONPATH:+:$PYTHONPATH}
tempest run --config-file "$WS/etc/tempest.conf" --list-tests --regex "$REGEX" \
  2>/dev/null | grep -E '^[a-z_]+\.[A-Za-z0-9_.]+' >"$RES/ntp.list"
echo "$(wc -l <"$RES/ntp.list") tests listed"
start=$(date +%s)
tempest run --config-file "$WS/etc/tempest.conf" --regex "$REGEX" --concurrency "${CONCURRENCY:-2}" \
  >"$RES/ntp.log" 2>&1
rc=$?
end=$(date +%s)
stestr last --subunit >"$RES/ntp.subunit" 2>/dev/null
python3 "$CONF/subunit_results.py" "$RES/ntp.subunit" "$RES/ntp.list" "$RES/ntp" | tee "$RES/summary.txt"
echo "rc=$rc time=$((end - start))s" | tee -a "$RES/summary.txt"
