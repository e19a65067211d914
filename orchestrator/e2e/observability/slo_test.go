package observability_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/glimpse/glimpse/internal/testtool"
)

// monChartPath is the Helm chart, relative to this package.
const monChartPath = "../../../helm/glimpse"

// monFindHelm looks at GLIMPSE_HELM_BIN, then PATH, then the copy that
// `make test` builds, as the chart's own tests do.
func monFindHelm() (string, error) {
	if p := os.Getenv("GLIMPSE_HELM_BIN"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", errors.New("GLIMPSE_HELM_BIN names " + p + ", which cannot be used: " + err.Error())
		}
		return p, nil
	}
	if p, err := exec.LookPath("helm"); err == nil {
		return p, nil
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".cache", "glimpse", "bin", "helm")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("helm is not installed: run `make deps`, which builds it into $HOME/.cache/glimpse/bin/helm, or put helm on PATH, or set GLIMPSE_HELM_BIN")
}

// monSLORules renders the chart's SLO PrometheusRule with its default
// objectives and writes its rules to a file Prometheus loads, returning
// the file's path and its rules.
func monSLORules(t *testing.T) (string, monRuleFile) {
	t.Helper()
	helm, err := monFindHelm()
	if err != nil {
		testtool.Missing(t, err)
	}
	cmd := exec.Command(helm, "template", "glimpse", monChartPath,
		"--set", "metrics.prometheusRule.enabled=true",
		"--api-versions", "monitoring.coreos.com/v1/PrometheusRule",
		"--show-only", "templates/prometheusrule-slo.yaml")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm template of the SLO rules: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var obj struct {
		Spec yaml.Node `yaml:"spec"`
	}
	if err := yaml.Unmarshal(out, &obj); err != nil {
		t.Fatalf("the SLO PrometheusRule does not decode: %v", err)
	}
	spec, err := yaml.Marshal(&obj.Spec)
	if err != nil {
		t.Fatal(err)
	}
	var rules monRuleFile
	if err := yaml.Unmarshal(spec, &rules); err != nil || len(rules.Groups) == 0 {
		t.Fatalf("the SLO PrometheusRule holds no rule groups (%v):\n%s", err, out)
	}
	path := filepath.Join(t.TempDir(), "slo.yaml")
	if err := os.WriteFile(path, spec, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, rules
}
