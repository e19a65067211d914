package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestASidecarThatDiesStartingFailsTheSetupAndIsKept covers -sidecars
// when a further sidecar exits before it is ready: the setup fails naming
// it and its log, and the process is kept so that close accounts for it.
func TestASidecarThatDiesStartingFailsTheSetupAndIsKept(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sidecar"), []byte("#!/bin/sh\necho no browser here >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := &bench{o: options{binDir: dir, sidecars: 3}, dir: dir}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	addrs, err := b.startMoreSidecars(ctx, "token")
	if err == nil || !strings.Contains(err.Error(), "sidecar 2 exited while starting") || !strings.Contains(err.Error(), "sidecar-2.log") {
		t.Fatalf("err = %v, want one naming sidecar 2 and its log", err)
	}
	if len(addrs) != 0 || len(b.more) != 1 {
		t.Fatalf("addresses %v and %d processes kept, want none ready and the one started", addrs, len(b.more))
	}
	if ended, _ := b.more[0].exited(); !ended {
		t.Error("the failed sidecar is still running")
	}
	log, _ := os.ReadFile(filepath.Join(dir, "sidecar-2.log"))
	if !strings.Contains(string(log), "no browser here") {
		t.Errorf("the sidecar's log holds %q", log)
	}
}

// TestSidecarsListsTheFirstThenTheOthers covers what CPU and memory are
// summed over: every sidecar, the first first, and none before setup.
func TestSidecarsListsTheFirstThenTheOthers(t *testing.T) {
	b := &bench{}
	if got := b.sidecars(); len(got) != 0 {
		t.Fatalf("before setup: %d sidecars", len(got))
	}
	first, second, third := &proc{name: "sidecar"}, &proc{name: "sidecar 2"}, &proc{name: "sidecar 3"}
	b.side, b.more = first, []*proc{second, third}
	got := b.sidecars()
	if len(got) != 3 || got[0] != first || got[1] != second || got[2] != third {
		t.Fatalf("sidecars = %v", got)
	}
	env := strings.Join(b.sidecarEnv("127.0.0.1:9", "tok"), " ")
	for _, want := range []string{"GLIMPSE_SIDECAR_ADDR=127.0.0.1:9", "GLIMPSE_SIDECAR_TOKEN=tok", "GLIMPSE_RECYCLE_AFTER=0"} {
		if !strings.Contains(env, want) {
			t.Errorf("a sidecar's environment %q lacks %s", env, want)
		}
	}
}
