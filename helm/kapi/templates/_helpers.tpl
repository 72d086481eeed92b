{{/*
Names, labels and shared snippets. Names follow `helm create`: <release>-<chart> unless the
release name already contains the chart name, truncated to 63 characters (DNS label limit).
*/}}

{{- define "kapi.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "kapi.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "kapi.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels every object carries. */}}
{{- define "kapi.labels" -}}
helm.sh/chart: {{ include "kapi.chart" . }}
app.kubernetes.io/name: {{ include "kapi.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: kapi
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Selector labels of one component ("apiserver" or "etcd"): call with (dict "root" $ "component" "etcd"). */}}
{{- define "kapi.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kapi.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* Object names. */}}
{{- define "kapi.apiserver.fullname" -}}
{{- include "kapi.fullname" . }}
{{- end }}
{{- define "kapi.etcd.fullname" -}}
{{- printf "%s-etcd" (include "kapi.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "kapi.etcd.headless" -}}
{{- printf "%s-etcd-headless" (include "kapi.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "kapi.tlsSecretName" -}}
{{- default (printf "%s-tls" (include "kapi.fullname" .)) .Values.apiServer.tls.existingSecret }}
{{- end }}

{{- define "kapi.apiserver.serviceAccountName" -}}
{{- if .Values.apiServer.serviceAccount.create }}
{{- default (include "kapi.apiserver.fullname" .) .Values.apiServer.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.apiServer.serviceAccount.name }}
{{- end }}
{{- end }}
{{- define "kapi.etcd.serviceAccountName" -}}
{{- if .Values.etcd.serviceAccount.create }}
{{- default (include "kapi.etcd.fullname" .) .Values.etcd.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.etcd.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The stable DNS name of etcd member $i: <sts>-<i>.<headless>.<ns>.svc.<clusterDomain>. Call with (dict "root" $ "i" 0). */}}
{{- define "kapi.etcd.memberHost" -}}
{{- printf "%s-%d.%s.%s.svc.%s" (include "kapi.etcd.fullname" .root) (int .i) (include "kapi.etcd.headless" .root) .root.Release.Namespace .root.Values.clusterDomain }}
{{- end }}

{{/* --etcd-servers for kapi: every member's client URL. */}}
{{- define "kapi.etcd.clientURLs" -}}
{{- $urls := list }}
{{- range $i := until (int .Values.etcd.replicaCount) }}
{{- $urls = append $urls (printf "http://%s:%d" (include "kapi.etcd.memberHost" (dict "root" $ "i" $i)) (int $.Values.etcd.ports.client)) }}
{{- end }}
{{- join "," $urls }}
{{- end }}

{{/* --initial-cluster for etcd: <name>=<peer URL> for every member. */}}
{{- define "kapi.etcd.initialCluster" -}}
{{- $members := list }}
{{- range $i := until (int .Values.etcd.replicaCount) }}
{{- $members = append $members (printf "%s-%d=http://%s:%d" (include "kapi.etcd.fullname" $) $i (include "kapi.etcd.memberHost" (dict "root" $ "i" $i)) (int $.Values.etcd.ports.peer)) }}
{{- end }}
{{- join "," $members }}
{{- end }}

{{/* The majority of etcd members: the default minAvailable of the etcd PodDisruptionBudget. */}}
{{- define "kapi.etcd.quorum" -}}
{{- add (div (int .Values.etcd.replicaCount) 2) 1 }}
{{- end }}

{{/*
Pod anti-affinity for one component: "soft" (preferred), "hard" (required) or "" (none).
Call with (dict "root" $ "component" "etcd" "mode" .Values.etcd.podAntiAffinity "topologyKey" ...).
*/}}
{{- define "kapi.podAntiAffinity" -}}
{{- if eq .mode "hard" }}
podAntiAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
    - topologyKey: {{ .topologyKey }}
      labelSelector:
        matchLabels:
          {{- include "kapi.selectorLabels" (dict "root" .root "component" .component) | nindent 10 }}
{{- else if eq .mode "soft" }}
podAntiAffinity:
  preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      podAffinityTerm:
        topologyKey: {{ .topologyKey }}
        labelSelector:
          matchLabels:
            {{- include "kapi.selectorLabels" (dict "root" .root "component" .component) | nindent 12 }}
{{- else if ne .mode "" }}
{{- fail (printf "podAntiAffinity must be \"soft\", \"hard\" or \"\", not %q" .mode) }}
{{- end }}
{{- end }}

{{/* An HTTP probe from a values block: call with (dict "path" "/livez" "port" "https" "scheme" "HTTPS" "probe" .Values.apiServer.probes.liveness). */}}
{{- define "kapi.httpProbe" -}}
httpGet:
  path: {{ .path }}
  port: {{ .port }}
  scheme: {{ .scheme }}
initialDelaySeconds: {{ .probe.initialDelaySeconds }}
periodSeconds: {{ .probe.periodSeconds }}
timeoutSeconds: {{ .probe.timeoutSeconds }}
failureThreshold: {{ .probe.failureThreshold }}
{{- end }}

{{- define "kapi.image" -}}
{{- printf "%s:%s" .image.repository (default .root.Chart.AppVersion .image.tag) }}
{{- end }}
