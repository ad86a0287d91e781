#!/bin/bash
# OpenStack-Helm's ks-user: the service user octonet validates tokens as, in its project, with its
# roles. Idempotent: a rerun resets the password to the Secret's. Admin credentials: OS_* env;
# the user's: SERVICE_OS_* env (from Secret octonet-keystone-user).
set -ex
openstack domain create --or-show "${SERVICE_OS_USER_DOMAIN_NAME}"
openstack project create --or-show --domain "${SERVICE_OS_PROJECT_DOMAIN_NAME}" "${SERVICE_OS_PROJECT_NAME}"
openstack user create --or-show --domain "${SERVICE_OS_USER_DOMAIN_NAME}" \
  --password "${SERVICE_OS_PASSWORD}" "${SERVICE_OS_USERNAME}"
openstack user set --domain "${SERVICE_OS_USER_DOMAIN_NAME}" --password "${SERVICE_OS_PASSWORD}" "${SERVICE_OS_USERNAME}"
for role in ${SERVICE_OS_ROLES//,/ }; do
  openstack role create --or-show "${role}"
  openstack role add --project-domain "${SERVICE_OS_PROJECT_DOMAIN_NAME}" --project "${SERVICE_OS_PROJECT_NAME}" \
    --user-domain "${SERVICE_OS_USER_DOMAIN_NAME}" --user "${SERVICE_OS_USERNAME}" "${role}"
done
