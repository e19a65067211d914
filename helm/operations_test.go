package helm_test

import (
	"os/exec"
	"strings"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
)

// renderWith renders the chart with --set flags for a cluster serving the
// given extra APIs, failing the test if helm does.
func renderWith(t *testing.T, apis []string, sets ...string) rendering {
	t.Helper()
	var args []string
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	out, err := helmTemplateOn(t, apis, args...)
	if err != nil {
		t.Fatalf("helm template --set %v: %v", sets, err)
	}
	objs, err := decodeAll(out)
	if err != nil {
		t.Fatal(err)
	}
	return rendering{objects: objs}
}

func TestMonitoringObjectsAreLeftOutWhereTheClusterLacksTheirAPI(t *testing.T) {
	on := []string{"metrics.serviceMonitor.enabled=true", "metrics.prometheusRule.enabled=true"}
	t.Run("without the prometheus-operator CRDs the chart renders neither, and installs", func(t *testing.T) {
		r := renderWith(t, nil, on...)
		if n := len(objectsOf[*serviceMonitor](r)) + len(objectsOf[*prometheusRule](r)); n != 0 {
			t.Errorf("%d monitoring objects rendered for a cluster without their API; the install would fail", n)
		}
	})
	t.Run("with the CRDs both are rendered", func(t *testing.T) {
		r := renderWith(t, monitoringAPIs, on...)
		if len(objectsOf[*serviceMonitor](r)) != 1 || len(alertsRules(objectsOf[*prometheusRule](r))) != 1 || len(objectsOf[*prometheusRule](r)) != 2 {
			t.Errorf("want one ServiceMonitor and two PrometheusRules, the alerts' and the SLOs', where the cluster has their API")
		}
	})
}

func TestProbesAreConfigurable(t *testing.T) {
	t.Run("the defaults are the values file's", func(t *testing.T) {
		r := render(t, valuesCase{name: "defaults"})
		o := containerOf(t, workloadOf(t, r, "orchestrator"), "orchestrator")
		if p := o.ReadinessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/readyz" || p.PeriodSeconds != 5 || p.FailureThreshold != 2 {
			t.Errorf("orchestrator readiness probe = %+v; want /readyz every 5s, 2 failures", p)
		}
		s := containerOf(t, workloadOf(t, r, "sidecar"), "sidecar")
		if p := s.LivenessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" || p.FailureThreshold != 6 {
			t.Errorf("sidecar liveness probe = %+v; want /healthz with 6 failures", p)
		}
	})
	t.Run("a value changes the timing and keeps the handler", func(t *testing.T) {
		r := renderWith(t, monitoringAPIs,
			"orchestrator.probes.readiness.periodSeconds=7",
			"orchestrator.probes.liveness.initialDelaySeconds=4",
			"sidecar.probes.startup.failureThreshold=90")
		o := containerOf(t, workloadOf(t, r, "orchestrator"), "orchestrator")
		if p := o.ReadinessProbe; p.PeriodSeconds != 7 || p.TimeoutSeconds != 3 || p.HTTPGet.Path != "/readyz" {
			t.Errorf("orchestrator readiness probe = %+v; want every 7s, the rest as before", p)
		}
		if p := o.LivenessProbe; p.InitialDelaySeconds != 4 || p.HTTPGet.Path != "/healthz" {
			t.Errorf("orchestrator liveness probe = %+v; want a 4s delay on /healthz", p)
		}
		s := containerOf(t, workloadOf(t, r, "sidecar"), "sidecar")
		if p := s.StartupProbe; p.FailureThreshold != 90 || p.HTTPGet.Path != "/healthz" {
			t.Errorf("sidecar startup probe = %+v; want 90 failures on /healthz", p)
		}
	})
	t.Run("a field that is not a probe's is refused", func(t *testing.T) {
		if _, err := helmTemplate(t, "--set", "orchestrator.probes.readiness.perodSeconds=7"); err == nil || !strings.Contains(err.Error(), "perodSeconds") {
			t.Errorf("a misspelt probe field was accepted (%v)", err)
		}
	})
}

func TestSidecarsSpreadOverNodesAndZonesByDefault(t *testing.T) {
	spread := func(r rendering) []corev1.TopologySpreadConstraint {
		return workloadOf(t, r, "sidecar").template.Spec.TopologySpreadConstraints
	}
	t.Run("by default, softly over hostnames and zones, counting only sidecars", func(t *testing.T) {
		for _, c := range valuesCases(t) {
			r := render(t, c)
			w := workloadOf(t, r, "sidecar")
			got := spread(r)
			if len(got) != 2 || got[0].TopologyKey != "kubernetes.io/hostname" || got[1].TopologyKey != "topology.kubernetes.io/zone" {
				t.Fatalf("%s: sidecar spread = %+v; want hostname and zone", c.name, got)
			}
			for _, tsc := range got {
				if tsc.WhenUnsatisfiable != corev1.ScheduleAnyway || tsc.MaxSkew != 1 {
					t.Errorf("%s: %s spread is %s with skew %d; want ScheduleAnyway, 1", c.name, tsc.TopologyKey, tsc.WhenUnsatisfiable, tsc.MaxSkew)
				}
				for k, v := range tsc.LabelSelector.MatchLabels {
					if w.template.Labels[k] != v {
						t.Errorf("%s: the spread selects %s=%s, which the sidecar pods do not carry", c.name, k, v)
					}
				}
				if tsc.LabelSelector.MatchLabels[componentLabel] != "sidecar" {
					t.Errorf("%s: the spread does not count sidecars only", c.name)
				}
			}
		}
	})
	t.Run("constraints given replace the default, and it can be turned off", func(t *testing.T) {
		r := renderWith(t, monitoringAPIs, "sidecar.topologySpreadConstraints[0].maxSkew=2",
			"sidecar.topologySpreadConstraints[0].topologyKey=rack",
			"sidecar.topologySpreadConstraints[0].whenUnsatisfiable=DoNotSchedule")
		if got := spread(r); len(got) != 1 || got[0].TopologyKey != "rack" {
			t.Errorf("spread = %+v; want only the given one", got)
		}
		if got := spread(renderWith(t, monitoringAPIs, "sidecar.defaultTopologySpread=false")); len(got) != 0 {
			t.Errorf("spread = %+v; want none", got)
		}
	})
}

func TestAutoscalersScaleGently(t *testing.T) {
	t.Run("both HorizontalPodAutoscalers carry their behavior", func(t *testing.T) {
		r := renderWith(t, monitoringAPIs, "orchestrator.autoscaling.enabled=true", "sidecar.autoscaling.enabled=true",
			"minio.enabled=true", "minio.auth.existingSecret=m")
		hpas := objectsOf[*autoscalingv2.HorizontalPodAutoscaler](r)
		if len(hpas) != 2 {
			t.Fatalf("%d HorizontalPodAutoscalers; want 2", len(hpas))
		}
		for _, h := range hpas {
			b := h.Spec.Behavior
			if b == nil || b.ScaleDown == nil || b.ScaleDown.StabilizationWindowSeconds == nil || *b.ScaleDown.StabilizationWindowSeconds < 60 {
				t.Errorf("%s scales down without a stabilization window: %+v", h.Name, b)
			}
		}
	})
	t.Run("KEDA without its API is refused with a message", func(t *testing.T) {
		_, err := helmTemplate(t, "--set", "sidecar.autoscaling.keda.enabled=true")
		if err == nil || !strings.Contains(err.Error(), "keda.sh/v1alpha1") {
			t.Errorf("KEDA on a cluster without it: %v; want a failure naming keda.sh/v1alpha1", err)
		}
	})
	t.Run("KEDA scales the sidecars on demand and replaces their CPU autoscaler", func(t *testing.T) {
		out, err := helmTemplateOn(t, append([]string{"--api-versions", "keda.sh/v1alpha1/ScaledObject"}, monitoringAPIs...),
			"--set", "sidecar.autoscaling.keda.enabled=true", "--set", "sidecar.autoscaling.enabled=true")
		if err != nil {
			t.Fatal(err)
		}
		var scaled []string
		for _, doc := range documentSeparator.Split(string(out), -1) {
			if strings.Contains(doc, "kind: ScaledObject") {
				scaled = append(scaled, doc)
			}
			if strings.Contains(doc, "kind: HorizontalPodAutoscaler") && strings.Contains(doc, "component: sidecar") {
				t.Errorf("a CPU HorizontalPodAutoscaler still targets the sidecars:\n%s", doc)
			}
		}
		if len(scaled) != 1 {
			t.Fatalf("%d ScaledObjects; want 1", len(scaled))
		}
		for _, want := range []string{"glimpse_pool_queue_length", "glimpse_pool_leases_in_use", `namespace=\"` + namespace + `\"`, "name: " + releaseName + "-glimpse-sidecar", "stabilizationWindowSeconds: 300"} {
			if !strings.Contains(scaled[0], want) {
				t.Errorf("the ScaledObject lacks %s:\n%s", want, scaled[0])
			}
		}
	})
}

func TestStoredFilesAreAddressedWhereCallersReachThem(t *testing.T) {
	env := func(r rendering) (string, bool) {
		e, ok := envOf(containerOf(t, workloadOf(t, r, "orchestrator"), "orchestrator"))["GLIMPSE_PUBLIC_BASE_URL"]
		return e.Value, ok
	}
	tests := []struct {
		name string
		sets []string
		want string // "" for unset
	}{
		{"the value given wins", []string{"orchestrator.publicBaseURL=https://cdn.example.com", "orchestrator.ingress.enabled=true"}, "https://cdn.example.com"},
		{"the Ingress host with TLS is glimpse's public address", []string{"orchestrator.ingress.enabled=true",
			"orchestrator.ingress.tls[0].secretName=t", "orchestrator.ingress.tls[0].hosts[0]=glimpse.example.com"}, "https://glimpse.example.com"},
		{"the Ingress host without TLS", []string{"orchestrator.ingress.enabled=true"}, "http://glimpse.example.com"},
		{"nothing known leaves glimpse's own default", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := env(renderWith(t, monitoringAPIs, tt.sets...))
			if tt.want == "" && ok || tt.want != "" && got != tt.want {
				t.Errorf("GLIMPSE_PUBLIC_BASE_URL = %q (set %v); want %q", got, ok, tt.want)
			}
		})
	}
}

func TestHelmTestChecksReadinessAndOneAnswer(t *testing.T) {
	r := render(t, valuesCase{name: "defaults"})
	pods := objectsOf[*corev1.Pod](r)
	if len(pods) != 1 || pods[0].Annotations["helm.sh/hook"] != "test" {
		t.Fatalf("want one pod with the helm test hook, got %d", len(pods))
	}
	c := pods[0].Spec.Containers[0]
	script := strings.Join(c.Args, "\n")
	for _, want := range []string{"/readyz", `"status":"success"`, "exit 1"} {
		if !strings.Contains(script, want) {
			t.Errorf("the test script lacks %s:\n%s", want, script)
		}
	}
	if e := envOf(c)["GLIMPSE"].Value; e != "http://"+releaseName+"-glimpse-orchestrator:80" {
		t.Errorf("the test calls %s; want the orchestrator Service", e)
	}
	if pods[0].Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restart policy %s; a test pod runs once", pods[0].Spec.RestartPolicy)
	}
	if _, err := exec.LookPath("sh"); err == nil {
		// The script itself is valid shell.
		if out, err := exec.Command("sh", "-n", "-c", script).CombinedOutput(); err != nil {
			t.Errorf("the test script is not valid shell: %v: %s", err, out)
		}
	}
}

// TestCachedHelmKnowsItsVersions checks the helm that make test builds: it
// reports its own version and, without a cluster, assumes a current
// Kubernetes rather than helm's built-in 1.20, which the chart's kubeVersion
// refuses.
func TestCachedHelmKnowsItsVersions(t *testing.T) {
	out, err := exec.Command(helmBinary(t), "version", "--template", "{{.Version}}").Output()
	if err != nil {
		t.Fatal(err)
	}
	if v := strings.TrimSpace(string(out)); !strings.HasPrefix(v, "v3.") || strings.Count(v, ".") != 2 {
		t.Errorf("helm reports version %q; want a full v3.x.y (build it with make deps)", v)
	}
	cmd := exec.Command(helmBinary(t), "template", releaseName, chartDir, "--show-only", "templates/orchestrator-service.yaml")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("helm template without --kube-version failed; helm assumes an old Kubernetes (build it with make deps): %v: %s", err, out)
	}
}
