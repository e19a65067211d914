package helm_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// sloRunbook holds the runbook sections of the SLO alerts: the chart's
// runbook, beside those of its other alerts.
const sloRunbook = runbookFile

// alertsRules leaves out the SLO PrometheusRule (slo_test.go), keeping the
// one made of files/alerts.yaml.
func alertsRules(rules []*prometheusRule) []*prometheusRule {
	var out []*prometheusRule
	for _, r := range rules {
		if !strings.HasSuffix(r.Name, "-slo") {
			out = append(out, r)
		}
	}
	return out
}

// renderSLORules renders the chart's SLO PrometheusRule and returns its
// rules file, or nil when none is rendered.
func renderSLORules(t *testing.T, extra ...string) []byte {
	t.Helper()
	out, err := helmTemplate(t, append([]string{"--set", "metrics.prometheusRule.enabled=true"}, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range documentSeparator.Split(string(out), -1) {
		if !strings.Contains(doc, "# Source: glimpse/templates/prometheusrule-slo.yaml") {
			continue
		}
		var obj struct {
			Spec ruleFile `json:"spec"`
		}
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatalf("the SLO PrometheusRule does not decode: %v", err)
		}
		raw, err := yaml.Marshal(obj.Spec)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	return nil
}

func TestSLORules(t *testing.T) {
	rules := renderSLORules(t)
	if rules == nil {
		t.Fatal("no SLO PrometheusRule is rendered with prometheusRule.enabled")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "slo.yaml"), rules, 0o600); err != nil {
		t.Fatal(err)
	}
	tests, err := os.ReadFile(filepath.Join("testdata", "slo_test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "slo_test.yaml"), tests, 0o600); err != nil {
		t.Fatal(err)
	}

	t.Run("promtool check rules accepts them", func(t *testing.T) {
		out, err := exec.Command(promtool(t), "check", "rules", filepath.Join(dir, "slo.yaml")).CombinedOutput()
		if err != nil {
			t.Fatalf("promtool check rules failed: %v\n%s", err, out)
		}
	})
	t.Run("each alert fires on its situation and not on its look-alike", func(t *testing.T) {
		out, err := exec.Command(promtool(t), "test", "rules", filepath.Join(dir, "slo_test.yaml")).CombinedOutput()
		if err != nil {
			t.Fatalf("promtool test rules failed: %v\n%s", err, out)
		}
	})

	var rf ruleFile
	if err := yaml.UnmarshalStrict(rules, &rf); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(sloRunbook)
	if err != nil {
		t.Fatal(err)
	}
	exported := exportedNames(t)
	tested := string(tests)
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			if r.Record != "" {
				if !strings.HasPrefix(r.Expr, "vector(") {
					checkNames(t, r.Record, r.Expr, exported)
				}
				continue
			}
			t.Run(r.Alert+" has a runbook section and a test", func(t *testing.T) {
				anchor := strings.ToLower(r.Alert)
				if !strings.HasSuffix(r.Annotations["runbook_url"], "#"+anchor) {
					t.Errorf("runbook_url is %q, want it to end in #%s", r.Annotations["runbook_url"], anchor)
				}
				if !strings.Contains(string(raw), "\n## "+r.Alert+"\n") {
					t.Errorf("%s has no section ## %s", sloRunbook, r.Alert)
				}
				if !strings.Contains(tested, "alertname: "+r.Alert+"\n") {
					t.Errorf("testdata/slo_test.yaml does not test %s", r.Alert)
				}
				if s := r.Labels["severity"]; s != "critical" && s != "warning" {
					t.Errorf("severity %q", s)
				}
			})
		}
	}

	t.Run("metrics.slo.enabled=false renders none", func(t *testing.T) {
		if renderSLORules(t, "--set", "metrics.slo.enabled=false") != nil {
			t.Error("the SLO rules are rendered although metrics.slo.enabled is false")
		}
	})
	t.Run("an objective's threshold must be a bucket of the histogram", func(t *testing.T) {
		_, err := helmTemplate(t, "--set", "metrics.prometheusRule.enabled=true", "--set", "metrics.slo.objectives.pdf.latencySeconds=7")
		if err == nil || !strings.Contains(err.Error(), "latencySeconds") {
			t.Errorf("a threshold of 7s: %v", err)
		}
	})
	t.Run("objectives are configurable", func(t *testing.T) {
		raw := renderSLORules(t, "--set-json", "metrics.slo.objectives.pdf={\"availability\": 0.999, \"latency\": 0.9, \"latencySeconds\": 30}")
		var rf ruleFile
		if err := yaml.Unmarshal(raw, &rf); err != nil {
			t.Fatal(err)
		}
		var exprs []string
		for _, g := range rf.Groups {
			for _, r := range g.Rules {
				if r.Labels["output"] == "pdf" {
					exprs = append(exprs, r.Expr)
				}
			}
		}
		r := strings.Join(exprs, "\n")
		if !strings.Contains(r, "vector(0.999)") || !strings.Contains(r, "vector(0.9)") || !strings.Contains(r, `output="pdf", le="30"`) {
			t.Errorf("the rendered rules do not carry the objectives given:\n%s", r)
		}
	})
}
