{{- define "combo.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "combo.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "combo.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "combo.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "combo.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "combo.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "combo.secretName" -}}
{{- default (printf "%s-secrets" (include "combo.fullname" .)) .Values.existingSecret -}}
{{- end -}}

{{/* The settings of every API and worker container: the ConfigMap, the Secret, the mounted certificates. */}}
{{- define "combo.envFrom" -}}
- configMapRef:
    name: {{ include "combo.fullname" . }}-config
{{- if or .Values.existingSecret .Values.secrets }}
- secretRef:
    name: {{ include "combo.secretName" . }}
{{- end }}
{{- end -}}

{{- define "combo.tlsEnv" -}}
{{- with .Values.temporal.tls }}
{{- if .secretName }}
- name: TEMPORAL_TLS_CLIENT_CERT_PATH
  value: /etc/combo/temporal-tls/tls.crt
- name: TEMPORAL_TLS_CLIENT_KEY_PATH
  value: /etc/combo/temporal-tls/tls.key
{{- if .hasCA }}
- name: TEMPORAL_TLS_SERVER_CA_CERT_PATH
  value: /etc/combo/temporal-tls/ca.crt
{{- end }}
{{- end }}
{{- if .serverName }}
- name: TEMPORAL_TLS_SERVER_NAME
  value: {{ .serverName | quote }}
{{- end }}
{{- end }}
{{- if .Values.elasticsearch.caSecretName }}
- name: ELASTICSEARCH_CA_CERT_PATH
  value: /etc/combo/elasticsearch-ca/ca.crt
{{- end }}
{{- end -}}

{{- define "combo.tlsVolumeMounts" -}}
{{- if .Values.temporal.tls.secretName }}
- name: temporal-tls
  mountPath: /etc/combo/temporal-tls
  readOnly: true
{{- end }}
{{- if .Values.elasticsearch.caSecretName }}
- name: elasticsearch-ca
  mountPath: /etc/combo/elasticsearch-ca
  readOnly: true
{{- end }}
{{- end -}}

{{- define "combo.tlsVolumes" -}}
{{- if .Values.temporal.tls.secretName }}
- name: temporal-tls
  secret:
    secretName: {{ .Values.temporal.tls.secretName }}
{{- end }}
{{- if .Values.elasticsearch.caSecretName }}
- name: elasticsearch-ca
  secret:
    secretName: {{ .Values.elasticsearch.caSecretName }}
{{- end }}
{{- end -}}

{{/* Restarts pods when the configuration or the chart's Secret changes. */}}
{{- define "combo.configChecksum" -}}
checksum/config: {{ toJson .Values.config | sha256sum }}
checksum/secrets: {{ toJson .Values.secrets | sha256sum }}
{{- end -}}

{{- define "combo.metricsAnnotations" -}}
{{- if .Values.metrics.enabled }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .Values.metrics.port | quote }}
prometheus.io/path: {{ .Values.metrics.path | quote }}
{{- end }}
{{- end -}}

{{/*
A task-queue group's queue name, as the service derives it (common/task-queues.ts): the interactive
queue is TEMPORAL_TASK_QUEUE; the others are set, or that name followed by -ingest / -deliveries.
*/}}
{{- define "combo.taskQueue" -}}
{{- $base := .config.TEMPORAL_TASK_QUEUE | default "combo" -}}
{{- if eq .group "interactive" -}}{{ $base }}
{{- else if eq .group "ingest" -}}{{ .config.TEMPORAL_INGEST_TASK_QUEUE | default (printf "%s-ingest" $base) }}
{{- else if eq .group "deliveries" -}}{{ .config.TEMPORAL_DELIVERY_TASK_QUEUE | default (printf "%s-deliveries" $base) }}
{{- else -}}{{ fail (printf "workers.groups[].queues: %s is not interactive, ingest or deliveries" .group) }}
{{- end -}}
{{- end -}}
