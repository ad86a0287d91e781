{{/*
Endpoint lookups in OpenStack-Helm's manner (helm-toolkit's endpoint functions, kept small here so
the chart has no dependency): a host is host_fqdn_override, else <hosts.class or default>.<namespace>.svc.<suffix>.
*/}}
{{- define "octonet.endpoint.fqdn" -}}
{{- $type := index . 0 -}}
{{- $class := index . 1 -}}
{{- $root := index . 2 -}}
{{- $ep := index $root.Values.endpoints $type -}}
{{- $override := "" -}}
{{- if $ep.host_fqdn_override -}}
{{- $override = (index $ep.host_fqdn_override $class) | default $ep.host_fqdn_override.default | default "" -}}
{{- end -}}
{{- if $override -}}
{{- $override -}}
{{- else -}}
{{- $host := (index $ep.hosts $class) | default $ep.hosts.default -}}
{{- printf "%s.%s.svc.%s" $host $root.Release.Namespace $root.Values.endpoints.cluster_domain_suffix -}}
{{- end -}}
{{- end -}}

{{/* tuple type class port root: the port of an endpoint's class, else its default. */}}
{{- define "octonet.endpoint.port" -}}
{{- $ep := index (index . 3).Values.endpoints (index . 0) -}}
{{- $port := index $ep.port (index . 2) -}}
{{- (index $port (index . 1)) | default $port.default -}}
{{- end -}}

{{/* tuple type class port root: scheme://fqdn:port/path */}}
{{- define "octonet.endpoint.url" -}}
{{- $ep := index (index . 3).Values.endpoints (index . 0) -}}
{{- $scheme := (index $ep.scheme (index . 1)) | default $ep.scheme.default -}}
{{- $path := (index $ep.path (index . 1)) | default $ep.path.default | default "" -}}
{{- printf "%s://%s:%v%s" $scheme (include "octonet.endpoint.fqdn" (tuple (index . 0) (index . 1) (index . 3))) (include "octonet.endpoint.port" .) $path -}}
{{- end -}}

{{/* tuple type root: an OVSDB remote, tcp:fqdn:port */}}
{{- define "octonet.ovsdb" -}}
{{- printf "tcp:%s:%s" (include "octonet.endpoint.fqdn" (tuple (index . 0) "default" (index . 1))) (include "octonet.endpoint.port" (tuple (index . 0) "default" "ovsdb" (index . 1))) -}}
{{- end -}}

{{/* The database URL of Secret octonet-db-user. */}}
{{- define "octonet.db_connection" -}}
{{- $db := .Values.endpoints.oslo_db -}}
{{- $auth := $db.auth.octonet -}}
{{- printf "%s://%s:%s@%s:%v%s" $db.scheme $auth.username $auth.password (include "octonet.endpoint.fqdn" (tuple "oslo_db" "default" .)) $db.port.postgresql.default $db.path -}}
{{- end -}}

{{/* conf.octonet with what endpoints.* says filled in where it is not set (docs/config.md keys). */}}
{{- define "octonet.conf" -}}
{{- $conf := deepCopy .Values.conf.octonet -}}
{{- $auth := .Values.endpoints.identity.auth.octonet -}}
{{- $fromEndpoints := dict "url" (include "octonet.endpoint.url" (tuple "identity" "internal" "api" .)) "user" $auth.username "project" $auth.project_name "user_domain" $auth.user_domain_name "project_domain" $auth.project_domain_name -}}
{{- $_ := set $conf "keystone" (merge (default (dict) $conf.keystone) $fromEndpoints) -}}
{{- $ovn := default (dict) $conf.ovn -}}
{{- if not $ovn.nb_connection -}}
{{- $_ := set $ovn "nb_connection" (include "octonet.ovsdb" (tuple "ovn_ovsdb_nb" .)) -}}
{{- end -}}
{{- if not $ovn.sb_connection -}}
{{- $_ := set $ovn "sb_connection" (include "octonet.ovsdb" (tuple "ovn_ovsdb_sb" .)) -}}
{{- end -}}
{{- $_ := set $conf "ovn" $ovn -}}
{{- toYaml $conf -}}
{{- end -}}

{{/* OpenStack-Helm's keystone env: OS_* of one endpoints.identity.auth user. */}}
{{- define "octonet.keystone_secret" -}}
{{- $auth := index (index . 1).Values.endpoints.identity.auth (index . 0) -}}
OS_AUTH_URL: {{ include "octonet.endpoint.url" (tuple "identity" "internal" "api" (index . 1)) | quote }}
OS_REGION_NAME: {{ $auth.region_name | quote }}
OS_INTERFACE: internal
OS_PROJECT_DOMAIN_NAME: {{ $auth.project_domain_name | quote }}
OS_PROJECT_NAME: {{ $auth.project_name | quote }}
OS_USER_DOMAIN_NAME: {{ $auth.user_domain_name | quote }}
OS_USERNAME: {{ $auth.username | quote }}
OS_PASSWORD: {{ $auth.password | quote }}
OS_DEFAULT_DOMAIN: default
{{- end -}}

{{- define "octonet.node_selector" -}}
{{- $labels := index (index . 1).Values.labels (index . 0) -}}
{{ $labels.node_selector_key }}: {{ $labels.node_selector_value | quote }}
{{- end -}}

{{/*
tuple file root image: one of deploy/'s manifests (operator.yaml, node-agent.yaml, rbac.yaml: files/
links there) in the release's namespace, with this chart's image and the node agent's node selector.
*/}}
{{- define "octonet.from_deploy" -}}
{{- $root := index . 1 -}}
{{- $text := $root.Files.Get (printf "files/%s" (index . 0)) -}}
{{- $text = $text | replace "namespace: octavia" (printf "namespace: %s" $root.Release.Namespace) -}}
{{- $text = $text | replace "image: ghcr.io/octonet/octonet:0.1.0" (printf "image: %s" (index . 2)) -}}
{{- $labels := $root.Values.labels.node_agent -}}
{{- $text = $text | replace "octavia.openstack.org/controller: 'true'" (printf "%s: %s" $labels.node_selector_key ($labels.node_selector_value | quote)) -}}
{{- $text -}}
{{- end -}}

{{/* clouds.yaml for the operator and node agent (Secret octonet-neutron-credentials, OS_CLOUD=octonet). */}}
{{- define "octonet.clouds_yaml" -}}
{{- $auth := .Values.endpoints.identity.auth.octonet -}}
clouds:
  octonet:
    auth:
      auth_url: {{ include "octonet.endpoint.url" (tuple "identity" "internal" "api" .) | quote }}
      username: {{ $auth.username | quote }}
      password: {{ $auth.password | quote }}
      project_name: {{ $auth.project_name | quote }}
      user_domain_name: {{ $auth.user_domain_name | quote }}
      project_domain_name: {{ $auth.project_domain_name | quote }}
    region_name: {{ $auth.region_name | quote }}
    interface: internal
    identity_api_version: 3
{{- end -}}
