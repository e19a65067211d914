package helm_test

import (
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// values is the chart's values.yaml merged with a case's values file.
type values map[string]any

func valuesOf(t *testing.T, c valuesCase) values {
	t.Helper()
	base := readYAML(t, filepath.Join(chartDir, "values.yaml"))
	if c.file != "" {
		merge(base, readYAML(t, c.file))
	}
	return base
}

func readYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s is not YAML: %v", path, err)
	}
	return m
}

// merge overlays src on dst the way helm merges values files: maps merge,
// everything else is replaced.
func merge(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				merge(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

// lookup returns the value at a dotted path, or nil.
func (v values) lookup(path string) any {
	var cur any = map[string]any(v)
	for _, k := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

// The environment variables of glimpse: docs/configuration.md's tables and
// those the cluster deployment adds.
var glimpseVariables = []string{
	"GLIMPSE_ADDR", "GLIMPSE_SIDECARS", "GLIMPSE_SIDECAR_ADDR", "GLIMPSE_CHROME_PATH",
	"GLIMPSE_ALLOW_TARGETS", "GLIMPSE_STORAGE_DIR", "GLIMPSE_PUBLIC_BASE_URL",
	"GLIMPSE_S3_ENDPOINT", "GLIMPSE_S3_BUCKET", "GLIMPSE_S3_ACCESS_KEY", "GLIMPSE_S3_SECRET_KEY",
	"GLIMPSE_S3_REGION", "GLIMPSE_S3_SECURE", "GLIMPSE_REGION", "GLIMPSE_PLANS",
	"GLIMPSE_LOG_FORMAT", "GLIMPSE_RECYCLE_AFTER", "GLIMPSE_SIDECAR_CONCURRENCY",
	"GLIMPSE_QUEUE_SIZE", "GLIMPSE_MAX_TIMEOUT",
	// Settings of the orchestrator and sidecar binaries beyond the table.
	"GLIMPSE_LOG_LEVEL", "GLIMPSE_SHUTDOWN_GRACE", "GLIMPSE_WARM", "GLIMPSE_CACHE_BYTES",
	"GLIMPSE_TRUSTED_PROXIES", "GLIMPSE_CHROME_FLAGS", "GLIMPSE_RECYCLE_MEMORY", "GLIMPSE_RECYCLE_GRACE",
	"GLIMPSE_SIDECAR_TOKEN", "GLIMPSE_S3_EXPIRE_DAYS", "GLIMPSE_STORAGE_MAX_BYTES", "GLIMPSE_REDIS_URL",
}

var docComment = regexp.MustCompile(`(?m)^# -- \S`)

func TestEveryValueIsDocumented(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}

	t.Run("every value has a comment above it", func(t *testing.T) {
		// A value is documented by a "# --" comment above its key, which
		// covers everything under it (a default such as resources). A key
		// without one is a section (a plain comment may introduce it) whose
		// own keys must each be documented.
		var walk func(n *yaml.Node, path string)
		walk = func(n *yaml.Node, path string) {
			for i := 0; i+1 < len(n.Content); i += 2 {
				key, val := n.Content[i], n.Content[i+1]
				p := strings.TrimPrefix(path+"."+key.Value, ".")
				if docComment.MatchString(key.HeadComment) {
					continue
				}
				if val.Kind == yaml.MappingNode && len(val.Content) > 0 {
					walk(val, p)
					continue
				}
				t.Errorf("values.yaml: %s has no comment saying what it does", p)
			}
		}
		walk(doc.Content[0], "")
	})

	t.Run("every environment variable of glimpse is named in values.yaml", func(t *testing.T) {
		for _, v := range glimpseVariables {
			if !strings.Contains(string(raw), v) {
				t.Errorf("values.yaml does not say which value sets %s", v)
			}
		}
	})

	t.Run("the chart can set every environment variable of glimpse and sets no other", func(t *testing.T) {
		known := map[string]bool{}
		for _, v := range glimpseVariables {
			known[v] = true
		}
		set := map[string]bool{}
		for _, c := range valuesCases(t) {
			r := render(t, c)
			extra := map[string]bool{}
			for _, path := range []string{"orchestrator.extraEnv", "sidecar.extraEnv"} {
				list, _ := valuesOf(t, c).lookup(path).([]any)
				for _, e := range list {
					if m, ok := e.(map[string]any); ok {
						extra[m["name"].(string)] = true
					}
				}
			}
			for _, w := range workloads(r) {
				if w.template.Labels[componentLabel] != "orchestrator" && w.template.Labels[componentLabel] != "sidecar" {
					continue
				}
				for _, ctr := range w.template.Spec.Containers {
					for _, e := range ctr.Env {
						set[e.Name] = true
						if !known[e.Name] && !extra[e.Name] {
							t.Errorf("%s sets %s %s, which is not a glimpse setting", c.name, ctr.Name, e.Name)
						}
					}
				}
			}
		}
		var missing []string
		for _, v := range glimpseVariables {
			if !set[v] {
				missing = append(missing, v)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("no values file under ci/ makes the chart set %v", missing)
		}
	})
}

// refusal is a set of values the chart must refuse, and what its message
// must say.
type refusal struct {
	name string
	set  []string
	want string
}

// checkRefusals renders each refusal and checks that helm fails with a
// message saying what to set.
func checkRefusals(t *testing.T, cases []refusal) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			var args []string
			for _, s := range tc.set {
				args = append(args, "--set", s)
			}
			_, err := helmTemplate(t, args...)
			if err == nil {
				t.Fatalf("helm template with %v succeeded", tc.set)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("the error does not say %q:\n%v", tc.want, err)
			}
		})
	}
}

func TestMisconfigurationsAreRefusedWithAClearMessage(t *testing.T) {
	cases := []refusal{
		{"the bundled MinIO together with an external endpoint", []string{"minio.enabled=true", "storage.s3.endpoint=s3.example.com", "storage.s3.existingSecret=s"},
			"choose the bundled MinIO or an external S3 endpoint"},
		{"an external endpoint without a credentials Secret", []string{"storage.s3.endpoint=s3.example.com"},
			"name the Secret that holds the S3 access key"},
		{"two orchestrators on local storage", []string{"orchestrator.replicaCount=2"},
			"cannot serve more than one replica"},
		{"autoscaled orchestrators on local storage", []string{"orchestrator.autoscaling.enabled=true"},
			"cannot serve more than one replica"},
		{"plans from both a ConfigMap and a Secret", []string{"plans.existingSecret=p", "plans.config.anonymous.limit=5"},
			"the plans file comes from one of them"},
		{"a NetworkPolicy that does not know where external storage is", []string{"networkPolicy.enabled=true", "storage.s3.endpoint=s3.example.com", "storage.s3.existingSecret=s"},
			"needs networkPolicy.orchestrator.storageTo"},
		{"a sidecar kind that is not a workload", []string{"sidecar.kind=DaemonSet"},
			"sidecar/kind"},
		{"a misspelt value", []string{"sidecar.replicas=3"},
			"additional properties 'replicas' not allowed"},
		{"an unknown log format", []string{"config.logFormat=xml"},
			"json"},
	}
	checkRefusals(t, cases)
}

func TestNoValuesFileHandsTheBrowserTheClustersOwnAddresses(t *testing.T) {
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	for _, c := range valuesCases(t) {
		t.Run("config.allowTargets "+c.name+" admits neither loopback nor a whole service range", func(t *testing.T) {
			list, _ := valuesOf(t, c).lookup("config.allowTargets").([]any)
			for _, item := range list {
				s, _ := item.(string)
				p, err := netip.ParsePrefix(s)
				if err != nil {
					a, aerr := netip.ParseAddr(s)
					if aerr != nil {
						t.Fatalf("allowTargets item %q is neither a prefix nor an address", s)
					}
					p = netip.PrefixFrom(a, a.BitLen())
				}
				for _, l := range loopback {
					if p.Overlaps(l) {
						t.Errorf("allowTargets holds %s, which reaches loopback, where the sidecar's and Chromium's own endpoints listen", p)
					}
				}
				if p.Addr().IsPrivate() && p.Bits() <= 16 {
					t.Errorf("allowTargets holds %s, a private range as wide as a cluster's whole service or pod range", p)
				}
			}
		})
	}
}
