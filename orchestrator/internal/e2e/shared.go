package e2e

import (
	"fmt"
	"os"
	"sync"
	"testing"
)

// shared is the one glimpse of a test binary's default-configuration
// tests, started by the first of them and stopped by Main.
var shared struct {
	once sync.Once
	app  *App
	stop func()
	dir  string
	err  error
}

// Shared returns the package's one glimpse with the default
// configuration, started on first use. Tests that use it call
// t.Parallel, so they must not read what the others change: browser
// targets and contexts, pages created, global metrics, the clock. Such a
// test starts its own with StartApp. A package that uses Shared has
//
//	func TestMain(m *testing.M) { e2e.Main(m) }
func Shared(t *testing.T) *App {
	t.Helper()
	SkipIfShort(t)
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "glimpse-e2e-")
		if shared.err != nil {
			return
		}
		a, stop, err := launch(shared.dir, Logger(), DefaultPlans, nil)
		if err != nil {
			shared.err = err
			return
		}
		shared.app, shared.stop = &App{App: a}, stop
	})
	if shared.err != nil {
		t.Fatalf("the shared glimpse did not start: %v", shared.err)
	}
	return Wrap(t, shared.app.App)
}

// Main runs the tests of a package, then stops its shared glimpse and
// removes its directory.
func Main(m *testing.M) {
	code := m.Run()
	if shared.stop != nil {
		shared.stop()
	}
	if shared.dir != "" {
		if err := os.RemoveAll(shared.dir); err != nil {
			fmt.Fprintf(os.Stderr, "removing the shared glimpse's directory: %v\n", err)
		}
	}
	os.Exit(code)
}
