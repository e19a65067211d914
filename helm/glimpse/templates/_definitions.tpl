{{/*
Names. Every object is named after the release, with a suffix per part.
*/}}
{{- define "glimpse.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "glimpse.fullname" -}}
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

{{- define "glimpse.orchestrator.fullname" -}}
{{- printf "%s-orchestrator" (include "glimpse.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "glimpse.sidecar.fullname" -}}
{{- printf "%s-sidecar" (include "glimpse.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "glimpse.minio.fullname" -}}
{{- printf "%s-minio" (include "glimpse.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "glimpse.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "glimpse.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "glimpse.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
Labels. Call with (dict "ctx" $ "component" "orchestrator").
*/}}
{{- define "glimpse.labels" -}}
helm.sh/chart: {{ include "glimpse.chart" .ctx }}
{{ include "glimpse.selectorLabels" . }}
app.kubernetes.io/version: {{ .ctx.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
app.kubernetes.io/part-of: glimpse
{{- with .ctx.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "glimpse.selectorLabels" -}}
app.kubernetes.io/name: {{ include "glimpse.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
{{- if .component }}
app.kubernetes.io/component: {{ .component }}
{{- end }}
{{- end }}

{{/*
Image reference. Call with (dict "image" .Values.x.image "ctx" $).
*/}}
{{- define "glimpse.image" -}}
{{- if .image.digest }}
{{- printf "%s@%s" .image.repository .image.digest }}
{{- else }}
{{- printf "%s:%s" .image.repository (default .ctx.Chart.AppVersion .image.tag | toString) }}
{{- end }}
{{- end }}

{{/*
The DNS name of the sidecars' headless Service with the sidecar port: the
pool resolves it again and again, so sidecars that come and go are found.
*/}}
{{- define "glimpse.sidecarsAddress" -}}
{{- printf "%s.%s.svc.%s:%d" (include "glimpse.sidecar.fullname" .) .Release.Namespace .Values.clusterDomain (int .Values.sidecar.port) }}
{{- end }}

{{/*
Storage mode: "minio" (bundled), "s3" (external endpoint) or "local"
(a directory in the orchestrator pod).
*/}}
{{- define "glimpse.storageMode" -}}
{{- if .Values.minio.enabled }}minio
{{- else if .Values.storage.s3.endpoint }}s3
{{- else }}local
{{- end }}
{{- end }}

{{/*
The Secret and keys holding the S3 credentials of the orchestrator.
*/}}
{{- define "glimpse.s3SecretName" -}}
{{- if .Values.minio.enabled }}
{{- default (include "glimpse.minio.fullname" .) .Values.minio.auth.existingSecret }}
{{- else }}
{{- .Values.storage.s3.existingSecret }}
{{- end }}
{{- end }}

{{- define "glimpse.s3AccessKeyKey" -}}
{{- if .Values.minio.enabled }}{{ .Values.minio.auth.accessKeyKey }}{{ else }}{{ .Values.storage.s3.accessKeyKey }}{{ end }}
{{- end }}

{{- define "glimpse.s3SecretKeyKey" -}}
{{- if .Values.minio.enabled }}{{ .Values.minio.auth.secretKeyKey }}{{ else }}{{ .Values.storage.s3.secretKeyKey }}{{ end }}
{{- end }}

{{/*
The Secret holding the sidecar token: the one named by sidecar.existingSecret,
or the one the chart creates.
*/}}
{{- define "glimpse.sidecarTokenSecretName" -}}
{{- default (printf "%s-token" (include "glimpse.sidecar.fullname" .)) .Values.sidecar.existingSecret | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
GLIMPSE_SIDECAR_TOKEN for the orchestrator and the sidecars, from that Secret.
*/}}
{{- define "glimpse.sidecarTokenEnv" -}}
- name: GLIMPSE_SIDECAR_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "glimpse.sidecarTokenSecretName" . }}
      key: {{ .Values.sidecar.existingSecretKey }}
{{- end }}

{{/*
Plans file source: "secret", "configmap" or "" (the built-in anonymous plan).
*/}}
{{- define "glimpse.plansSource" -}}
{{- if .Values.plans.existingSecret }}secret
{{- else if .Values.plans.config }}configmap
{{- end }}
{{- end }}

{{/*
Checks of combinations that would deploy something broken; each message
says what to change.
*/}}
{{- define "glimpse.validate" -}}
{{- $mode := include "glimpse.storageMode" . }}
{{- if and .Values.minio.enabled .Values.storage.s3.endpoint }}
{{- fail "Both minio.enabled and storage.s3.endpoint are set: choose the bundled MinIO or an external S3 endpoint, not both." }}
{{- end }}
{{- if and (eq $mode "s3") (not .Values.storage.s3.existingSecret) }}
{{- fail "storage.s3.endpoint is set but storage.s3.existingSecret is empty: name the Secret that holds the S3 access key and secret key." }}
{{- end }}
{{- if and (eq $mode "local") (or .Values.orchestrator.autoscaling.enabled (gt (int .Values.orchestrator.replicaCount) 1)) }}
{{- fail "Local storage is a directory inside one orchestrator pod, so it cannot serve more than one replica: set minio.enabled=true or storage.s3.endpoint, or keep orchestrator.replicaCount at 1 without autoscaling." }}
{{- end }}
{{- if and .Values.plans.existingSecret .Values.plans.config }}
{{- fail "Both plans.existingSecret and plans.config are set: the plans file comes from one of them; keep the one that holds your keys." }}
{{- end }}
{{- with .Values.sidecar.token }}
{{- if $.Values.sidecar.existingSecret }}
{{- fail "Both sidecar.token and sidecar.existingSecret are set: the sidecar token comes from one of them; keep the existing Secret and drop sidecar.token." }}
{{- end }}
{{- if or (lt (len .) 16) (not (regexMatch "^[!-~]+$" .)) }}
{{- fail "sidecar.token must be at least 16 printable ASCII characters without blanks, such as the output of `openssl rand -hex 32`." }}
{{- end }}
{{- end }}
{{- if not (has .Values.sidecar.kind (list "Deployment" "StatefulSet")) }}
{{- fail (printf "sidecar.kind is %q; it must be Deployment or StatefulSet." .Values.sidecar.kind) }}
{{- end }}
{{- if and .Values.networkPolicy.enabled (eq $mode "s3") (not .Values.networkPolicy.orchestrator.storageTo) }}
{{- fail "networkPolicy.enabled with an external S3 endpoint needs networkPolicy.orchestrator.storageTo: the address block (or pod and namespace selectors) of the S3 endpoint, so the orchestrator may reach it and nothing else." }}
{{- end }}
{{- end }}

{{/*
Pod and container security settings shared by every glimpse pod.
*/}}
{{- define "glimpse.podSecurityContext" -}}
{{- toYaml .Values.podSecurityContext }}
{{- end }}

{{- define "glimpse.containerSecurityContext" -}}
{{- toYaml .Values.containerSecurityContext }}
{{- end }}

{{/*
The DNS egress rule of every NetworkPolicy.
*/}}
{{- define "glimpse.dnsEgress" -}}
- to:
    {{- toYaml .Values.networkPolicy.dns.to | nindent 4 }}
  ports:
    {{- range .Values.networkPolicy.dns.ports }}
    - port: {{ . }}
      protocol: UDP
    - port: {{ . }}
      protocol: TCP
    {{- end }}
{{- end }}

{{/*
Address stored files are fetched from (GLIMPSE_PUBLIC_BASE_URL): the value
given, else glimpse's own address behind the Ingress (it serves files under
/files/ from any storage), else empty for glimpse's own default.
*/}}
{{- define "glimpse.publicBaseURL" -}}
{{- $o := .Values.orchestrator -}}
{{- if $o.publicBaseURL -}}
{{- $o.publicBaseURL -}}
{{- else if and $o.ingress.enabled $o.ingress.hosts -}}
{{- $host := (first $o.ingress.hosts).host -}}
{{- $tls := false -}}
{{- range $o.ingress.tls }}{{ if has $host (.hosts | default list) }}{{ $tls = true }}{{ end }}{{ end -}}
{{- if $host -}}{{ ternary "https" "http" $tls }}://{{ $host }}{{- end -}}
{{- end -}}
{{- end }}
