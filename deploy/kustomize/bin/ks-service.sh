#!/bin/bash
# OpenStack-Helm's ks-service: the catalogue's service entry (name and type) made once.
set -ex
existing=$(openstack service list -f value -c ID -c Type | awk -v t="${OS_SERVICE_TYPE}" '$2 == t { print $1; exit }')
if [ -z "${existing}" ]; then
  openstack service create --name "${OS_SERVICE_NAME}" --description "${OS_SERVICE_DESCRIPTION}" "${OS_SERVICE_TYPE}"
fi
