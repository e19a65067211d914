package helm_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/glimpse/glimpse/internal/testtool"
)

const (
	chartDir    = "glimpse"
	releaseName = "gl"
	namespace   = "glimpse-test"
	// Templates see this Kubernetes version; the chart asks for 1.25 or newer.
	kubeVersion = "1.31.0"
)

// helmBinary finds helm, or fails the test saying how to get it.
func helmBinary(t *testing.T) string {
	t.Helper()
	p, err := findHelm()
	if err != nil {
		testtool.Missing(t, err)
	}
	return p
}

// findHelm looks at GLIMPSE_HELM_BIN, then PATH, then the copy that
// `make test` builds.
func findHelm() (string, error) {
	if p := os.Getenv("GLIMPSE_HELM_BIN"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("GLIMPSE_HELM_BIN names %s, which cannot be used: %w", p, err)
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
	return "", errors.New("helm is not installed: run `make test`, which builds it into $HOME/.cache/glimpse/bin/helm, or put helm on PATH, or set GLIMPSE_HELM_BIN")
}

// valuesCase is one way of installing the chart: the default values or one
// of the values files under glimpse/ci.
type valuesCase struct {
	name string // for test names
	file string // empty for the defaults
}

func valuesCases(t *testing.T) []valuesCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(chartDir, "ci", "*-values.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no values files under %s/ci (%v)", chartDir, err)
	}
	sort.Strings(files)
	cases := []valuesCase{{name: "with the default values"}}
	for _, f := range files {
		cases = append(cases, valuesCase{name: "with " + filepath.Base(f), file: f})
	}
	return cases
}

func (c valuesCase) args() []string {
	if c.file == "" {
		return nil
	}
	return []string{"-f", c.file}
}

// object is one rendered Kubernetes object, decoded into its API type.
type object struct {
	source string // the template it came from
	kind   string
	name   string
	raw    []byte
	obj    any
}

type rendering struct {
	objects []object
}

var (
	renderMu    sync.Mutex
	renderCache = map[string]rendering{}
)

// render runs helm template for c once per test binary and decodes every
// object strictly, failing the test on any unknown field.
func render(t *testing.T, c valuesCase) rendering {
	t.Helper()
	renderMu.Lock()
	defer renderMu.Unlock()
	if r, ok := renderCache[c.file]; ok {
		return r
	}
	out, err := helmTemplate(t, c.args()...)
	if err != nil {
		t.Fatalf("helm template %s failed: %v", c.name, err)
	}
	objs, err := decodeAll(out)
	if err != nil {
		t.Fatalf("rendering %s: %v", c.name, err)
	}
	r := rendering{objects: objs}
	renderCache[c.file] = r
	return r
}

// monitoringAPIs are the prometheus-operator kinds the chart renders only
// where the cluster has them; renders see them unless a test says not.
var monitoringAPIs = []string{"--api-versions", "monitoring.coreos.com/v1/ServiceMonitor", "--api-versions", "monitoring.coreos.com/v1/PrometheusRule"}

func helmTemplate(t *testing.T, extra ...string) ([]byte, error) {
	t.Helper()
	return helmTemplateOn(t, monitoringAPIs, extra...)
}

// helmTemplateOn renders the chart for a cluster that serves the given
// --api-versions flags besides the built-in kinds.
func helmTemplateOn(t *testing.T, apis []string, extra ...string) ([]byte, error) {
	t.Helper()
	args := append([]string{"template", releaseName, chartDir, "--namespace", namespace, "--kube-version", kubeVersion}, apis...)
	args = append(args, extra...)
	cmd := exec.Command(helmBinary(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

var documentSeparator = regexp.MustCompile(`(?m)^---\s*$`)
var sourceLine = regexp.MustCompile(`(?m)^# Source: (\S+)`)

func decodeAll(out []byte) ([]object, error) {
	var objs []object
	for _, doc := range documentSeparator.Split(string(out), -1) {
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		source := "unknown template"
		if m := sourceLine.FindStringSubmatch(doc); m != nil {
			source = m[1]
		}
		o, err := decodeObject([]byte(doc))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		o.source = source
		objs = append(objs, o)
	}
	return objs, nil
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// newObject returns the API type for a rendered apiVersion and kind. A kind
// the chart starts to render must be added here, so it is decoded too.
func newObject(apiVersion, kind string) (any, bool) {
	switch apiVersion + " " + kind {
	case "apps/v1 Deployment":
		return &appsv1.Deployment{}, true
	case "apps/v1 StatefulSet":
		return &appsv1.StatefulSet{}, true
	case "v1 Pod":
		return &corev1.Pod{}, true
	case "v1 Service":
		return &corev1.Service{}, true
	case "v1 ConfigMap":
		return &corev1.ConfigMap{}, true
	case "v1 Secret":
		return &corev1.Secret{}, true
	case "v1 ServiceAccount":
		return &corev1.ServiceAccount{}, true
	case "v1 PersistentVolumeClaim":
		return &corev1.PersistentVolumeClaim{}, true
	case "networking.k8s.io/v1 NetworkPolicy":
		return &networkingv1.NetworkPolicy{}, true
	case "networking.k8s.io/v1 Ingress":
		return &networkingv1.Ingress{}, true
	case "autoscaling/v2 HorizontalPodAutoscaler":
		return &autoscalingv2.HorizontalPodAutoscaler{}, true
	case "policy/v1 PodDisruptionBudget":
		return &policyv1.PodDisruptionBudget{}, true
	case "batch/v1 Job":
		return &batchv1.Job{}, true
	case "monitoring.coreos.com/v1 ServiceMonitor":
		return &serviceMonitor{}, true
	case "monitoring.coreos.com/v1 PrometheusRule":
		return &prometheusRule{}, true
	}
	return nil, false
}

func decodeObject(doc []byte) (object, error) {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return object{}, fmt.Errorf("not YAML: %w", err)
	}
	if tm.APIVersion == "" || tm.Kind == "" {
		return object{}, fmt.Errorf("an object without apiVersion or kind:\n%s", doc)
	}
	obj, ok := newObject(tm.APIVersion, tm.Kind)
	if !ok {
		return object{}, fmt.Errorf("%s %s is not a kind these tests know; add it to newObject", tm.APIVersion, tm.Kind)
	}
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		return object{}, fmt.Errorf("%s does not decode strictly into its API type: %w", tm.Kind, err)
	}
	meta, ok := obj.(metav1.Object)
	if !ok {
		return object{}, fmt.Errorf("%s has no object metadata", tm.Kind)
	}
	return object{kind: tm.Kind, name: meta.GetName(), raw: doc, obj: obj}, nil
}

// objectsOf returns the rendered objects of type T.
func objectsOf[T any](r rendering) []T {
	var out []T
	for _, o := range r.objects {
		if v, ok := o.obj.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// The Prometheus Operator's custom resources, checked by hand: only the
// fields of their published schema that the chart uses are declared, so a
// misspelt or misplaced field fails the strict decode.
type serviceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		JobLabel          string               `json:"jobLabel,omitempty"`
		Selector          metav1.LabelSelector `json:"selector"`
		NamespaceSelector struct {
			Any        bool     `json:"any,omitempty"`
			MatchNames []string `json:"matchNames,omitempty"`
		} `json:"namespaceSelector"`
		Endpoints []struct {
			Port          string `json:"port"`
			Path          string `json:"path,omitempty"`
			Scheme        string `json:"scheme,omitempty"`
			Interval      string `json:"interval,omitempty"`
			ScrapeTimeout string `json:"scrapeTimeout,omitempty"`
		} `json:"endpoints"`
	} `json:"spec"`
}

type prometheusRule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              ruleFile `json:"spec"`
}

// ruleFile is both a plain Prometheus rules file and a PrometheusRule spec.
type ruleFile struct {
	Groups []struct {
		Name     string `json:"name"`
		Interval string `json:"interval,omitempty"`
		Rules    []struct {
			Alert       string            `json:"alert,omitempty"`
			Record      string            `json:"record,omitempty"`
			Expr        string            `json:"expr"`
			For         string            `json:"for,omitempty"`
			Labels      map[string]string `json:"labels,omitempty"`
			Annotations map[string]string `json:"annotations,omitempty"`
		} `json:"rules"`
	} `json:"groups"`
}

func TestHelmIsFoundOrNamedForInstallation(t *testing.T) {
	t.Run("without helm anywhere the error says to run make test", func(t *testing.T) {
		empty := t.TempDir()
		t.Setenv("GLIMPSE_HELM_BIN", "")
		t.Setenv("PATH", empty)
		t.Setenv("HOME", empty)
		_, err := findHelm()
		if err == nil || !strings.Contains(err.Error(), "make test") {
			t.Errorf("error = %v, want one naming make test", err)
		}
	})
	t.Run("a GLIMPSE_HELM_BIN that does not exist is named in the error", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "helm")
		t.Setenv("GLIMPSE_HELM_BIN", missing)
		_, err := findHelm()
		if err == nil || !strings.Contains(err.Error(), missing) {
			t.Errorf("error = %v, want one naming %s", err, missing)
		}
	})
	t.Run("helm in the make test cache is found without PATH", func(t *testing.T) {
		found, err := findHelm()
		if err != nil {
			testtool.Missing(t, err)
		}
		home := t.TempDir()
		bin := filepath.Join(home, ".cache", "glimpse", "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(found, filepath.Join(bin, "helm")); err != nil {
			t.Fatal(err)
		}
		t.Setenv("GLIMPSE_HELM_BIN", "")
		t.Setenv("PATH", t.TempDir())
		t.Setenv("HOME", home)
		if p, err := findHelm(); err != nil || p != filepath.Join(bin, "helm") {
			t.Errorf("findHelm() = %q, %v; want the cached copy", p, err)
		}
	})
}
