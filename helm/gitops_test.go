package helm_test

import (
	"strings"
	"testing"
)

// GitOps tools render the chart with helm template, where lookup finds
// nothing, and apply what changed. A sidecar token that changes on every
// render would be rotated by every sync, and pods started afterwards would
// hold a different token from the running ones.
func TestTheSidecarTokenIsStableAcrossRendersForGitOps(t *testing.T) {
	const token = "gitops-token-0123456789abcdef"
	twice := func(t *testing.T, args ...string) (string, string) {
		t.Helper()
		var outs [2]string
		for i := range outs {
			out, err := helmTemplate(t, args...)
			if err != nil {
				t.Fatal(err)
			}
			outs[i] = string(out)
		}
		return outs[0], outs[1]
	}
	diff := func(a, b string) string {
		al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
		var out []string
		for i := 0; i < len(al) || i < len(bl); i++ {
			var x, y string
			if i < len(al) {
				x = al[i]
			}
			if i < len(bl) {
				y = bl[i]
			}
			if x != y {
				out = append(out, "- "+x, "+ "+y)
			}
		}
		return strings.Join(out, "\n")
	}

	t.Run("with sidecar.token two renders are the same, the token included", func(t *testing.T) {
		a, b := twice(t, "--set", "sidecar.token="+token)
		if a != b {
			t.Errorf("two renders differ:\n%s", diff(a, b))
		}
		if !strings.Contains(a, "token: Z2l0b3BzLXRva2VuLTAxMjM0NTY3ODlhYmNkZWY=") {
			t.Error("the chart's Secret does not hold sidecar.token")
		}
	})
	t.Run("with sidecar.existingSecret two renders are the same and no token is rendered", func(t *testing.T) {
		a, b := twice(t, "--set", "sidecar.existingSecret=glimpse-sidecar-token")
		if a != b {
			t.Errorf("two renders differ:\n%s", diff(a, b))
		}
		if strings.Contains(a, "templates/sidecar-token-secret.yaml") {
			t.Error("the chart renders a token Secret beside the existing one")
		}
	})
	t.Run("without either only the generated token differs, as documented", func(t *testing.T) {
		a, b := twice(t)
		d := diff(a, b)
		if d == "" {
			t.Fatal("two renders made the same random token")
		}
		for _, line := range strings.Split(d, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line[2:]), "token: ") {
				t.Errorf("a render differs in more than the token: %s", line)
			}
		}
	})
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a short token is refused", []string{"--set", "sidecar.token=short"}, "at least 16 printable ASCII characters"},
		{"a token with a blank is refused", []string{"--set", "sidecar.token=sixteen chars and more"}, "without blanks"},
		{"a token and an existing Secret are refused together", []string{"--set", "sidecar.token=" + token, "--set", "sidecar.existingSecret=x"},
			"Both sidecar.token and sidecar.existingSecret are set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := helmTemplate(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("helm template: %v; want an error saying %q", err, tc.want)
			}
		})
	}
}
