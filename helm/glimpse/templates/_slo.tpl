{{/*
The SLO rules file: recording rules of each output's objectives and of its
error and slow-answer ratios over 5m, 30m, 1h, 2h, 6h, 1d and 3d, by
namespace and output (and cluster, where targets carry that label, so the
dashboard's cluster variable narrows them), then the alerts. Budgets are 1 minus the objective; a fast burn (14.4 times the
budget over 1h and 5m, or 6 times over 6h and 30m) spends 2 % or 5 % of a
30-day budget in that long, a slow one (3 times over 1d and 2h, or once over
3d and 6h) 10 % in a day or all of it in a month.
*/}}
{{- define "glimpse.sloRules" -}}
{{- $slo := .Values.metrics.slo }}
{{- $runbook := trimSuffix "/" $slo.runbookBaseURL }}
{{- $windows := list "5m" "30m" "1h" "2h" "6h" "1d" "3d" }}
{{- $buckets := list "0.5" "1" "2.5" "5" "10" "20" "30" "60" }}
groups:
  - name: glimpse-slo-objectives
    rules:
      {{- range $output, $o := $slo.objectives }}
      {{- if not (has (toString $o.latencySeconds) $buckets) }}
      {{- fail (printf "metrics.slo.objectives.%s.latencySeconds is %v; it must be a bucket of glimpse_http_request_duration_seconds: %s." $output $o.latencySeconds (join ", " $buckets)) }}
      {{- end }}
      - record: glimpse:slo_availability:objective
        expr: vector({{ $o.availability }})
        labels:
          output: {{ $output }}
      - record: glimpse:slo_latency:objective
        expr: vector({{ $o.latency }})
        labels:
          output: {{ $output }}
      {{- end }}
  - name: glimpse-slo-ratios
    rules:
      {{- range $w := $windows }}
      - record: glimpse:slo_availability_errors:ratio_rate{{ $w }}
        expr: >-
          sum by (cluster, namespace, output) (rate(glimpse_http_requests_total{status="5xx", output!="none"}[{{ $w }}]))
          / sum by (cluster, namespace, output) (rate(glimpse_http_requests_total{output!="none"}[{{ $w }}]))
      {{- range $output, $o := $slo.objectives }}
      - record: glimpse:slo_latency_slow:ratio_rate{{ $w }}
        expr: >-
          1 - (
          sum by (cluster, namespace, output) (rate(glimpse_http_request_duration_seconds_bucket{output="{{ $output }}", le="{{ $o.latencySeconds }}"}[{{ $w }}]))
          / sum by (cluster, namespace, output) (rate(glimpse_http_request_duration_seconds_count{output="{{ $output }}"}[{{ $w }}]))
          )
        labels:
          output: {{ $output }}
      {{- end }}
      {{- end }}
  - name: glimpse-slo-alerts
    rules:
      {{- range $sli := list "availability" "latency" }}
      {{- $ratio := ternary "glimpse:slo_availability_errors:ratio_rate" "glimpse:slo_latency_slow:ratio_rate" (eq $sli "availability") }}
      {{- $what := ternary "failed answers (5xx)" "answers slower than the objective's threshold" (eq $sli "availability") }}
      {{- $name := ternary "GlimpseErrorBudgetBurn" "GlimpseLatencyBudgetBurn" (eq $sli "availability") }}
      {{- range $speed := list "fast" "slow" }}
      {{- $alert := ternary $name (printf "%sSlow" $name) (eq $speed "fast") }}
      {{- $pairs := ternary (list (list "14.4" "1h" "5m") (list "6" "6h" "30m")) (list (list "3" "1d" "2h") (list "1" "3d" "6h")) (eq $speed "fast") }}
      - alert: {{ $alert }}
        expr: >-
          {{- range $i, $p := $pairs }}
          {{ if $i }}or {{ end }}(
            {{ $ratio }}{{ index $p 1 }} > on (output) group_left () ({{ index $p 0 }} * (1 - glimpse:slo_{{ $sli }}:objective))
            and
            {{ $ratio }}{{ index $p 2 }} > on (output) group_left () ({{ index $p 0 }} * (1 - glimpse:slo_{{ $sli }}:objective))
          )
          {{- end }}
        for: {{ ternary "2m" "15m" (eq $speed "fast") }}
        labels:
          severity: {{ ternary "critical" "warning" (eq $speed "fast") }}
        annotations:
          runbook_url: {{ $runbook }}#{{ lower $alert }}
          summary: glimpse is spending the {{ $sli }} error budget of {{ "{{" }} $labels.output {{ "}}" }} answers {{ ternary "fast" "steadily" (eq $speed "fast") }}.
          description: >-
            {{ "{{" }} $value | humanizePercentage {{ "}}" }} of {{ "{{" }} $labels.output {{ "}}" }} requests in
            {{ "{{" }} $labels.namespace {{ "}}" }} were {{ $what }}: at this rate the 30-day budget of
            the {{ $sli }} objective is gone in {{ ternary "under three days" "under a month" (eq $speed "fast") }}.
      {{- end }}
      {{- end }}
      - alert: GlimpseLeaseWaitHigh
        expr: >-
          histogram_quantile(0.95, sum by (namespace, pod, le) (rate(glimpse_pool_lease_wait_seconds_bucket[10m])))
          > {{ $slo.leaseWaitSeconds }}
        for: 10m
        labels:
          severity: warning
        annotations:
          runbook_url: {{ $runbook }}#glimpseleasewaithigh
          summary: Requests of a glimpse orchestrator queue for a browser.
          description: >-
            The 95th percentile of the wait for a browser on {{ "{{" }} $labels.pod {{ "}}" }} in
            {{ "{{" }} $labels.namespace {{ "}}" }} has been {{ "{{" }} $value | humanizeDuration {{ "}}" }} for 10 minutes,
            above {{ $slo.leaseWaitSeconds }}s: the sidecars are full long before requests get EBUSY.
{{- end }}
