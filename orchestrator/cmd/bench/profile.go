package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/glimpse/glimpse/orchestrator/cmd/bench/load"
)

// profileOut is one profile written to -profile, with its top functions.
type profileOut struct {
	name, path, what, top string
}

// fetchProfile saves /debug/pprof/<what> of the orchestrator into the
// profile folder.
func (b *bench) fetchProfile(ctx context.Context, name, what string, timeout time.Duration) error {
	if err := os.MkdirAll(b.o.profileDir, 0o755); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.api.base+"/debug/pprof/"+what, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("fetching /debug/pprof/%s: %w", what, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/debug/pprof/%s answered HTTP %d: %.200s", what, resp.StatusCode, body)
	}
	path := filepath.Join(b.o.profileDir, name+".pb.gz")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		return err
	}
	b.profiles = append(b.profiles, profileOut{name: name, path: path, what: what})
	return nil
}

// cpuProfile records the orchestrator's CPU for d.
func (b *bench) cpuProfile(ctx context.Context, name string, d time.Duration) error {
	secs := max(1, int(d/time.Second))
	return b.fetchProfile(ctx, name, "profile?seconds="+strconv.Itoa(secs), d+30*time.Second)
}

// profileRenders profiles the render path apart from the timed rows, so
// the profiler's own cost does not touch the table: metadata then PDF at
// concurrency 4 for 8 s each, then the heap and allocations.
func (b *bench) profileRenders(ctx context.Context, _ time.Duration) error {
	const d = 8 * time.Second
	for _, k := range []kind{kindMetadata, kindPDF} {
		list := b.metaPages
		if k.name == kindPDF.name {
			list = b.pdfPages
		}
		done := make(chan error, 1)
		go func() { done <- b.cpuProfile(ctx, "cpu-"+strings.ToLower(k.name)+"-c4", d) }()
		b.step("profiling glimpse %s at concurrency 4 for %s", k.name, d)
		res, err := load.Run(ctx, load.Plan{Concurrency: 4, Duration: d + 500*time.Millisecond}, b.glimpseJob(k, list))
		if err != nil {
			return err
		}
		b.recordFailures("profiling "+k.name, res)
		if err := <-done; err != nil {
			b.profileNotes = append(b.profileNotes, fmt.Sprintf("profiling %s: %v", k.name, err))
		}
	}
	// The heap is read even when the step's time is up: it takes a moment.
	hctx := context.WithoutCancel(ctx)
	for _, what := range []string{"heap", "allocs"} {
		if err := b.fetchProfile(hctx, what, what, 30*time.Second); err != nil {
			b.profileNotes = append(b.profileNotes, fmt.Sprintf("fetching the %s profile: %v", what, err))
		}
	}
	return nil
}

// topOf asks `go tool pprof` for the top functions of a profile; without a
// Go toolchain the profile is still written and its path printed.
func topOf(ctx context.Context, path, what string) string {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "(no go toolchain on PATH to summarise it: go tool pprof -top " + path + ")"
	}
	args := []string{"tool", "pprof", "-top", "-nodecount=15"}
	if strings.HasPrefix(what, "allocs") {
		args = append(args, "-sample_index=alloc_space")
	}
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, goBin, append(args, path)...)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Sprintf("(go tool pprof failed: %v: %s)", err, strings.TrimSpace(stderr.String()))
	}
	return out.String()
}

// summariseProfiles runs after the timed part: `go tool pprof` is slow to
// start on a busy machine and must not eat into a row's time.
func (b *bench) summariseProfiles() {
	for i := range b.profiles {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		b.profiles[i].top = topOf(ctx, b.profiles[i].path, b.profiles[i].what)
		cancel()
	}
}

func (b *bench) reportProfiles() {
	if len(b.profiles) == 0 && len(b.profileNotes) == 0 {
		return
	}
	fmt.Fprintf(b.out, "\nprofiles of the orchestrator (in %s)\n", b.o.profileDir)
	for _, n := range b.profileNotes {
		fmt.Fprintln(b.out, "  -", n)
	}
	for _, p := range b.profiles {
		fmt.Fprintf(b.out, "\n== %s (%s)\n", p.name, p.path)
		for _, line := range strings.Split(strings.TrimRight(p.top, "\n"), "\n") {
			fmt.Fprintln(b.out, "  "+line)
		}
	}
}
