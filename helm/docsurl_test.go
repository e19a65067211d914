package helm_test

import "testing"

// orchestrator.docsURL reaches the orchestrator as GLIMPSE_DOCS_URL; left
// empty, errors link to the page glimpse serves itself.
func TestTheErrorsDocsURLIsPassedOnOnlyWhenSet(t *testing.T) {
	env := func(t *testing.T, args ...string) (string, bool) {
		out, err := helmTemplate(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := decodeAll(out)
		if err != nil {
			t.Fatal(err)
		}
		e, ok := envOf(containerOf(t, workloadOf(t, rendering{objects: objs}, "orchestrator"), "orchestrator"))["GLIMPSE_DOCS_URL"]
		return e.Value, ok
	}
	if v, ok := env(t); ok {
		t.Errorf("by default GLIMPSE_DOCS_URL is %q; want it unset so glimpse links to its own page", v)
	}
	const page = "https://git.example.com/ops/glimpse/-/blob/main/docs/api.md"
	if v, _ := env(t, "--set", "orchestrator.docsURL="+page); v != page {
		t.Errorf("GLIMPSE_DOCS_URL is %q, want %q", v, page)
	}
	if _, err := helmTemplate(t, "--set", "orchestrator.docsURL=https://docs.example.com/api#errors"); err == nil {
		t.Error("a docs URL with its own anchor was accepted; each error adds the code's anchor")
	}
}
