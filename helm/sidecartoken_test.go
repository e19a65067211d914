package helm_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestSidecarTokenIsSharedByOrchestratorAndSidecars(t *testing.T) {
	for _, c := range valuesCases(t) {
		t.Run("the orchestrator and the sidecars read one token from one Secret "+c.name, func(t *testing.T) {
			r := render(t, c)
			v := valuesOf(t, c)
			refOf := func(component string) *corev1.SecretKeySelector {
				e, ok := envOf(containerOf(t, workloadOf(t, r, component), component))["GLIMPSE_SIDECAR_TOKEN"]
				if !ok || e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
					t.Fatalf("the %s's GLIMPSE_SIDECAR_TOKEN must come from a Secret, got %+v", component, e)
				}
				return e.ValueFrom.SecretKeyRef
			}
			orch, side := refOf("orchestrator"), refOf("sidecar")
			if orch.Name != side.Name || orch.Key != side.Key {
				t.Fatalf("the orchestrator reads %s/%s but the sidecars read %s/%s", orch.Name, orch.Key, side.Name, side.Key)
			}
			if key := v.lookup("sidecar.existingSecretKey"); orch.Key != key {
				t.Errorf("the token is read from key %q, want sidecar.existingSecretKey %q", orch.Key, key)
			}

			var created *corev1.Secret
			for _, s := range objectsOf[*corev1.Secret](r) {
				if s.Name == orch.Name {
					created = s
				}
			}
			if existing, _ := v.lookup("sidecar.existingSecret").(string); existing != "" {
				if orch.Name != existing {
					t.Errorf("the token comes from %s, want sidecar.existingSecret %s", orch.Name, existing)
				}
				if created != nil {
					t.Errorf("the chart renders the Secret %s that sidecar.existingSecret says exists", existing)
				}
				return
			}
			if created == nil {
				t.Fatalf("the Secret %s the token comes from is not rendered", orch.Name)
			}
			token := string(created.Data[orch.Key])
			if len(token) < 16 || strings.IndexFunc(token, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0 {
				t.Errorf("the generated token %q is not at least 16 printable characters, which the sidecar requires", token)
			}
		})
	}

	t.Run("a second render makes a different token, so none is fixed in the chart", func(t *testing.T) {
		token := func() string {
			out, err := helmTemplate(t, "--show-only", "templates/sidecar-token-secret.yaml")
			if err != nil {
				t.Fatal(err)
			}
			return string(out)
		}
		if token() == token() {
			t.Error("two renders produced the same token")
		}
	})
	t.Run("an upgrade keeps the token of the Secret already installed", func(t *testing.T) {
		// helm template cannot reach a cluster, so lookup finds nothing
		// there; this checks that the template asks for the Secret it makes.
		b, err := os.ReadFile(filepath.Join(chartDir, "templates", "sidecar-token-secret.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `lookup "v1" "Secret" .Release.Namespace $name`) {
			t.Error("the token Secret does not look up the installed one, so every upgrade would change the token")
		}
	})
}
