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
{{- $urls = append $urls (printf "%s://%s:%d" (include "kapi.etcd.scheme" $) (include "kapi.etcd.memberHost" (dict "root" $ "i" $i)) (int $.Values.etcd.ports.client)) }}
{{- end }}
{{- join "," $urls }}
{{- end }}

{{/* --initial-cluster for etcd: <name>=<peer URL> for every member. */}}
{{- define "kapi.etcd.initialCluster" -}}
{{- $members := list }}
{{- range $i := until (int .Values.etcd.replicaCount) }}
{{- $members = append $members (printf "%s-%d=%s://%s:%d" (include "kapi.etcd.fullname" $) $i (include "kapi.etcd.scheme" $) (include "kapi.etcd.memberHost" (dict "root" $ "i" $i)) (int $.Values.etcd.ports.peer)) }}
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

{{- define "kapi.authSecretName" -}}
{{- printf "%s-auth" (include "kapi.fullname" .) }}
{{- end }}

{{- define "kapi.etcd.tlsSecretName" -}}
{{- default (printf "%s-etcd-tls" (include "kapi.fullname" .)) .Values.etcd.tls.existingSecret }}
{{- end }}

{{/*
Every certificate the chart generates, made once per render and kept in the cluster: on an
upgrade `lookup` returns the stored Secrets and their data is reused, so a no-op upgrade
changes nothing (and pods are not restarted). Memoized on the root context so that the Secrets
and the pods' checksum annotations see the same material within one render (each `include`
would otherwise make a new CA). Returns JSON: {"api": {...}, "etcd": {...}} of base64 values.
*/}}
{{- define "kapi.generatedTLS" -}}
{{- if not (hasKey . "kapiGeneratedTLS") }}
{{- $days := int .Values.apiServer.tls.validityDays }}
{{- $out := dict }}
{{- if not .Values.apiServer.tls.existingSecret }}
{{- $stored := lookup "v1" "Secret" .Release.Namespace (include "kapi.tlsSecretName" .) }}
{{- if and $stored $stored.data }}
{{- $_ := set $out "api" (dict "tls.crt" (index $stored.data "tls.crt") "tls.key" (index $stored.data "tls.key") "ca.crt" (index $stored.data "ca.crt")) }}
{{- else }}
{{- $svc := include "kapi.apiserver.fullname" . }}
{{- $ns := .Release.Namespace }}
{{- $dnsNames := list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.%s" $svc $ns .Values.clusterDomain) "localhost" }}
{{- $dnsNames = concat $dnsNames .Values.apiServer.tls.extraDNSNames }}
{{- $ca := genCA (printf "%s-ca" $svc) $days }}
{{- $cert := genSignedCert $svc (list "127.0.0.1") $dnsNames $days $ca }}
{{- $_ := set $out "api" (dict "tls.crt" ($cert.Cert | b64enc) "tls.key" ($cert.Key | b64enc) "ca.crt" ($ca.Cert | b64enc)) }}
{{- end }}
{{- end }}
{{- if and .Values.etcd.tls.enabled (not .Values.etcd.tls.existingSecret) }}
{{- $stored := lookup "v1" "Secret" .Release.Namespace (include "kapi.etcd.tlsSecretName" .) }}
{{- if and $stored $stored.data }}
{{- $_ := set $out "etcd" $stored.data }}
{{- else }}
{{- $headless := include "kapi.etcd.headless" . }}
{{- $ns := .Release.Namespace }}
{{- $names := list (printf "*.%s" $headless) (printf "*.%s.%s" $headless $ns) (printf "*.%s.%s.svc" $headless $ns) (printf "*.%s.%s.svc.%s" $headless $ns .Values.clusterDomain) "localhost" }}
{{- $ca := genCA (printf "%s-etcd-ca" (include "kapi.fullname" .)) $days }}
{{- $member := genSignedCert "etcd" (list "127.0.0.1") $names $days $ca }}
{{- $client := genSignedCert "kapi-apiserver" nil nil $days $ca }}
{{- $_ := set $out "etcd" (dict "ca.crt" ($ca.Cert | b64enc) "member.crt" ($member.Cert | b64enc) "member.key" ($member.Key | b64enc) "client.crt" ($client.Cert | b64enc) "client.key" ($client.Key | b64enc)) }}
{{- end }}
{{- end }}
{{- /* Authentication material: the client CA (--client-ca-file; sign users' certificates with
its key) and a static admin token in system:masters (--token-auth-file; Sprig cannot put an
O= in a certificate). */}}
{{- $stored := lookup "v1" "Secret" .Release.Namespace (include "kapi.authSecretName" .) }}
{{- if and $stored $stored.data }}
{{- $_ := set $out "auth" $stored.data }}
{{- else }}
{{- $clientCa := genCA (printf "%s-client-ca" (include "kapi.fullname" .)) $days }}
{{- $token := randAlphaNum 48 }}
{{- $tokens := printf "%s,kapi-admin,kapi-admin,\"system:masters\"\n" $token }}
{{- $_ := set $out "auth" (dict "client-ca.crt" ($clientCa.Cert | b64enc) "client-ca.key" ($clientCa.Key | b64enc) "tokens.csv" ($tokens | b64enc) "admin-token" ($token | b64enc)) }}
{{- end }}
{{- /* The service account signing key (RSA, as kubeadm's sa.key), made once; a release from
before it had none gets one on its next upgrade. */}}
{{- if not (hasKey $out.auth "sa.key") }}
{{- $_ := set $out "auth" (merge (dict "sa.key" (genPrivateKey "rsa" | b64enc)) $out.auth) }}
{{- end }}
{{- $_ := set . "kapiGeneratedTLS" ($out | toJson) }}
{{- end }}
{{- index . "kapiGeneratedTLS" }}
{{- end }}

{{/* The etcd URL scheme: https when etcd.tls.enabled. */}}
{{- define "kapi.etcd.scheme" -}}
{{- if .Values.etcd.tls.enabled }}https{{ else }}http{{ end }}
{{- end }}
