package clients_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// The microlink CLI's `--api-key=K`, written as Microlink's docs show it,
// reaches glimpse as the query parameter api-key: the key's plan answers,
// and a key glimpse does not know is refused, never run on the anonymous
// plan.
func TestTheMicrolinkCLIsAPIKeyFlagIsHonoured(t *testing.T) {
	dir := clientsDir(t)
	nodeBinary(t)
	app := e2e.Wrap(t, e2e.Launch(t, e2e.Logger(), `
anonymous: {name: walk-in, limit: 1, window: 1h}
plans: [{name: pro, limit: 100, window: 1h}]
keys: [{key: k-cli-live-1, plan: pro}]
`, nil))
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/keyed": e2e.HTML(`<!doctype html><html lang="en"><title>Keyed</title><p>A page asked for with a key.</p></html>`),
	})
	bin := filepath.Join(dir, "node_modules", ".bin", "microlink")
	interop, err := filepath.Abs(filepath.Join("testdata", "clients", "cli-interop.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (out string, code int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append(args, "--endpoint="+app.URL()+"/")...)
		cmd.Env = append(os.Environ(), "NO_UPDATE_NOTIFIER=1", "NO_COLOR=1", "FORCE_COLOR=0", "CI=1", "MICROLINK_API_KEY=",
			"NODE_OPTIONS=--require="+interop)
		var o bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &o
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			code = exit.ExitCode()
		case err != nil:
			t.Fatalf("running microlink %s: %v", strings.Join(args, " "), err)
		}
		return o.String(), code
	}

	// The anonymous plan allows one request: three answers in a row are
	// the key's plan at work.
	for i := range 3 {
		out, code := run(ps.URL+"/keyed&force", "--api-key=k-cli-live-1", "--no-pretty")
		if code != 0 || !strings.Contains(out, `"title":"Keyed"`) {
			t.Fatalf("call %d with a known key: exit %d\n%s", i+1, code, out)
		}
	}
	// The CLI shows a failure only in its pretty mode: with --no-pretty
	// it exits 0 and prints nothing.
	out, code := run(ps.URL+"/keyed", "--api-key=k-cli-made-up")
	for _, want := range []string{"EAUTH (401)", "`api-key`", app.URL() + "/docs/errors#eauth"} {
		if code == 0 || !strings.Contains(out, want) {
			t.Errorf("an unknown key: exit %d, want a failure that shows %q:\n%s", code, want, out)
		}
	}
}
