package sidecar

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain also checks, after every test, that no goroutine is left and
// that every child process the tests caused was reaped.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if zs, err := zombieChildren(); err != nil || len(zs) > 0 {
			fmt.Fprintf(os.Stderr, "dead children were not reaped: %+v %v\n", zs, err)
			code = 1
		}
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goroutines were left running: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// requireChrome returns the Chromium binary, failing the test with what to
// install when there is none. Integration tests skip only under -short.
func requireChrome(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real Chromium; skipped under -short")
	}
	p, err := FindChrome()
	if err != nil {
		t.Fatalf("this test needs Chromium: %v", err)
	}
	return p
}

// testLogger writes to the test log, so a failing test shows what the
// sidecar said.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(&testWriter{t: t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

type testWriter struct {
	mu   sync.Mutex
	t    *testing.T
	done bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

// startSidecar starts a Sidecar on real Chromium behind an httptest server
// and closes both when the test ends.
func startSidecar(t *testing.T, cfg Config) (*Sidecar, *httptest.Server) {
	t.Helper()
	cfg.ChromePath = requireChrome(t)
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		srv.Close()
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return s, srv
}

// getHealth fetches /healthz.
func getHealth(t *testing.T, base string) (int, Health) {
	t.Helper()
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatalf("GET /healthz: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var h Health
	if err := json.Unmarshal(body, &h); err != nil {
		t.Fatalf("GET /healthz answered %d with %q, not Health JSON: %v", resp.StatusCode, body, err)
	}
	return resp.StatusCode, h
}

// eventually polls cond every 25ms until it holds or d passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen within %v", what, d)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// liveProcessesWith returns the live processes whose command line contains s.
func liveProcessesWith(t *testing.T, s string) []int {
	t.Helper()
	ms, err := members(procRoot, 0, s)
	if err != nil {
		t.Fatalf("scanning /proc: %v", err)
	}
	var pids []int
	for _, m := range ms {
		if !m.zombie() {
			pids = append(pids, m.pid)
		}
	}
	return pids
}

// writeScript writes an executable shell script into a temporary directory.
func writeScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "browser.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// isolateTemp gives the test a temporary directory of its own for profile
// directories, so other programs starting Chromium on the same machine do
// not confuse its checks. The path stays short: Chromium puts a Unix socket
// under it.
func isolateTemp(t *testing.T) {
	t.Helper()
	dir, err := os.MkdirTemp("", "sct")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", dir)
	t.Cleanup(func() { os.RemoveAll(dir) })
}

// profileDirs lists the generation profile directories in the temp dir.
func profileDirs(t *testing.T) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(os.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "glimpse-chromium-") {
			out[filepath.Join(os.TempDir(), e.Name())] = true
		}
	}
	return out
}

// zombieChildren returns the dead children of the test process nobody reaped.
func zombieChildren() ([]procStat, error) {
	pids, err := listPIDs(procRoot)
	if err != nil {
		return nil, err
	}
	var out []procStat
	for _, pid := range pids {
		if st, err := readStat(procRoot, pid); err == nil && st.zombie() && st.ppid == os.Getpid() {
			out = append(out, st)
		}
	}
	return out, nil
}

func ourZombies(t *testing.T) []procStat {
	t.Helper()
	zs, err := zombieChildren()
	if err != nil {
		t.Fatal(err)
	}
	return zs
}

// serveFront builds a sidecar Server from cfg without running it and
// serves its front handler on loopback; everything the server opened is
// closed when the test ends.
func serveFront(t *testing.T, cfg RunConfig) (*Server, *httptest.Server) {
	t.Helper()
	srv, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.guardLn.Close()
		srv.plainLn.Close()
		srv.quietLn.Close()
		_ = srv.guard.Close()
		srv.upstreams.close()
		_ = srv.sidecar.Close()
	})
	front := httptest.NewServer(srv.Handler())
	t.Cleanup(front.Close)
	return srv, front
}
