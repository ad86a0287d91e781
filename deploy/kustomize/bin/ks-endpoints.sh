#!/bin/bash
# OpenStack-Helm's ks-endpoints: one container per interface (admin, internal, public) makes or
# updates that interface's endpoint of the service type in the region.
set -ex
service=$(openstack service list -f value -c ID -c Type | awk -v t="${OS_SERVICE_TYPE}" '$2 == t { print $1; exit }')
[ -n "${service}" ] || { echo "no ${OS_SERVICE_TYPE} service yet (ks-service)" >&2; exit 1; }
existing=$(openstack endpoint list -f value -c ID --service "${service}" \
  --interface "${OS_SVC_ENDPOINT}" --region "${OS_REGION_NAME}")
if [ -n "${existing}" ]; then
  openstack endpoint set --url "${OS_SERVICE_ENDPOINT}" "${existing}"
else
  openstack endpoint create --region "${OS_REGION_NAME}" "${service}" "${OS_SVC_ENDPOINT}" "${OS_SERVICE_ENDPOINT}"
fi
