package orchestrator

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The orchestrator's packages and which of them each may depend on,
// directly or not: root → api → answer → render → query → apierr, with
// cache, quota, meta, markdown, overlay and document as leaves, and mcp and playground
// beside them, knowing the API only as its callers do. Nothing depends on the root, and
// nothing below api on Echo.
var layout = []struct {
	pkg     string
	mayUse  []string
	echoUse bool
}{
	{"api", []string{"answer", "render", "query", "apierr", "cache", "quota", "meta", "markdown", "overlay", "document"}, true},
	{"answer", []string{"render", "query", "apierr", "meta", "markdown", "overlay", "document"}, false},
	{"render", []string{"query", "apierr", "meta", "overlay", "document"}, false},
	{"query", []string{"apierr", "overlay"}, false},
	{"apierr", nil, false},
	{"cache", nil, false},
	{"quota", nil, false},
	{"meta", nil, false},
	{"markdown", []string{"meta"}, false},
	{"overlay", nil, false},
	{"document", nil, false},
	{"mcp", nil, false},        // calls the API as an http.Handler, in process
	{"playground", nil, false}, // calls the API from the browser
}

const module = "github.com/glimpse/glimpse/orchestrator"

func TestImportsPointOneWay(t *testing.T) {
	for _, l := range layout {
		t.Run(l.pkg+" uses only what lies below it", func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", module+"/"+l.pkg).CombinedOutput()
			if err != nil {
				t.Fatalf("go list: %v\n%s", err, out)
			}
			for dep := range strings.FieldsSeq(string(out)) {
				if strings.HasPrefix(dep, "github.com/labstack/echo") && !l.echoUse {
					t.Errorf("%s depends on Echo (%s); only api speaks HTTP", l.pkg, dep)
				}
				if dep == module {
					t.Errorf("%s depends on the root package, which only wires", l.pkg)
					continue
				}
				rest, ok := strings.CutPrefix(dep, module+"/")
				if !ok || rest == l.pkg || strings.HasPrefix(rest, l.pkg+"/") || strings.HasPrefix(rest, "cmd/") {
					continue
				}
				top, _, _ := strings.Cut(rest, "/")
				if !slices.Contains(l.mayUse, top) {
					t.Errorf("%s depends on %s, against the direction root → api → answer → render → query → apierr", l.pkg, rest)
				}
			}
		})
	}
}
