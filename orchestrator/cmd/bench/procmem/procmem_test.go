package procmem

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseParent(t *testing.T) {
	tests := []struct {
		name string
		stat string
		want int
		ok   bool
	}{
		{"a plain command name", "42 (sleep) S 7 42 42 0 -1", 7, true},
		{"a command name with spaces and parentheses", "42 (Web Content (x) y) R 1234 42 42 0", 1234, true},
		{"a line cut short", "42 (sleep) S", 0, false},
		{"a line without a command name", "42 sleep S 7", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseParent([]byte(tt.stat))
			if got != tt.want || ok != tt.ok {
				t.Errorf("parseParent(%q) = %d, %v; want %d, %v", tt.stat, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// fakeProc writes a /proc with a tree 1 → 10 → {11, 12}, 11 → 13, and an
// unrelated 20.
func fakeProc(t *testing.T) {
	t.Helper()
	root := t.TempDir()
	procs := []struct {
		pid, ppid int
		pss       string // smaps_rollup Pss line, "" for none
	}{
		{1, 0, "Pss:                 100 kB"},
		{10, 1, "Pss:                1000 kB"},
		{11, 10, "Pss:                 200 kB"},
		{12, 10, ""},
		{13, 11, "Pss:                  30 kB"},
		{20, 1, "Pss:                5000 kB"},
	}
	for _, p := range procs {
		dir := filepath.Join(root, strconv.Itoa(p.pid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		stat := strconv.Itoa(p.pid) + " (proc " + strconv.Itoa(p.pid) + ") S " + strconv.Itoa(p.ppid) + " 1 1 0"
		write(t, filepath.Join(dir, "stat"), stat)
		if p.pss != "" {
			write(t, filepath.Join(dir, "smaps_rollup"), "00400000-7ffd [rollup]\nRss:  999 kB\n"+p.pss+"\nPss_Anon:  1 kB\n")
		}
		write(t, filepath.Join(dir, "status"), "Name:\tproc\nVmPeak:\t 9999 kB\nVmRSS:\t    2048 kB\n")
		cmdline := "/usr/lib/chromium/chromium\x00--headless\x00"
		switch p.pid {
		case 11:
			cmdline = "/usr/lib/chromium/chromium\x00--type=renderer\x00--lang=en\x00"
		case 13: // as Chromium rewrites it: one string, spaces between
			cmdline = "/usr/lib/chromium/chromium --type=zygote --no-sandbox\x00\x00\x00"
		}
		write(t, filepath.Join(dir, "cmdline"), cmdline)
	}
	write(t, filepath.Join(root, "self"), "not a process directory")
	old := Root
	Root = root
	t.Cleanup(func() { Root = old })
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTreeAndMemoryFromAFakeProc(t *testing.T) {
	fakeProc(t)
	t.Run("a tree lists the process and everything below it, parents first", func(t *testing.T) {
		got, err := Tree(10)
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != 10 || !slices.Contains(got, 13) || len(got) != 4 || slices.Index(got, 11) > slices.Index(got, 13) {
			t.Errorf("Tree(10) = %v, want 10 first, then 11 and 12, then 13", got)
		}
	})
	t.Run("a tree of a process that is not running is an error", func(t *testing.T) {
		if _, err := Tree(99); err == nil || !strings.Contains(err.Error(), "not running") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("tree PSS sums the processes that have one", func(t *testing.T) {
		u, err := TreePSS(10)
		if err != nil {
			t.Fatal(err)
		}
		if u.PSS != (1000+200+30)*1024 || u.Processes != 3 {
			t.Errorf("TreePSS(10) = %+v, want 1230 kB over 3 processes", u)
		}
	})
	t.Run("the tree's own root without PSS is an error", func(t *testing.T) {
		if _, err := TreePSS(12); err == nil {
			t.Error("want an error for a root whose memory cannot be read")
		}
	})
	t.Run("RSS is read from status in bytes", func(t *testing.T) {
		n, err := RSS(13)
		if err != nil || n != 2048*1024 {
			t.Errorf("RSS(13) = %d, %v", n, err)
		}
	})
	t.Run("a Chromium process is named by its --type, the browser by having none", func(t *testing.T) {
		if k := ChromiumKind(11); k != "renderer" {
			t.Errorf("kind of 11 = %q", k)
		}
		if k := ChromiumKind(13); k != "zygote" {
			t.Errorf("kind of 13, whose command line Chromium rewrote = %q", k)
		}
		if k := ChromiumKind(10); k != "browser" {
			t.Errorf("kind of 10 = %q", k)
		}
		if k := ChromiumKind(99); k != "gone" {
			t.Errorf("kind of a missing process = %q", k)
		}
	})
	t.Run("a file without the field names the file and the field", func(t *testing.T) {
		_, err := field(filepath.Join(Root, "1", "stat"), "Pss:")
		if err == nil || !strings.Contains(err.Error(), "has no Pss line") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestRealProcesses(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting sleep (coreutils) as a child: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	self := os.Getpid()

	t.Run("a child started by this process is in its tree", func(t *testing.T) {
		deadline := time.Now().Add(5 * time.Second)
		for {
			pids, err := Tree(self)
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(pids, cmd.Process.Pid) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("Tree(%d) = %v, without the child %d", self, pids, cmd.Process.Pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	t.Run("this process has a PSS and an RSS", func(t *testing.T) {
		pss, err := PSS(self)
		if err != nil || pss <= 0 {
			t.Fatalf("PSS = %d, %v", pss, err)
		}
		rss, err := RSS(self)
		if err != nil || rss < pss {
			t.Fatalf("RSS = %d, %v; want at least the PSS %d", rss, err, pss)
		}
		u, err := TreePSS(self)
		if err != nil || u.PSS < pss || u.Processes < 2 {
			t.Fatalf("TreePSS = %+v, %v; want this process and its child", u, err)
		}
	})
}

func TestParseCPU(t *testing.T) {
	// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
	// majflt cmajflt utime stime cutime cstime …
	ok := "42 (a (b) c) S 1 42 42 0 -1 4194304 10 0 0 0 150 50 30 20 20 0 1"
	got, err := parseCPU([]byte(ok))
	if err != nil || got != 2500*time.Millisecond {
		t.Errorf("parseCPU = %v, %v; want 2.5s (250 ticks)", got, err)
	}
	for _, bad := range []string{"42 (x) S 1 42", "42 x S 1 42 42 0 -1 0 0 0 0 0 1 1 1 1", "42 (x) S 1 42 42 0 -1 0 0 0 0 0 1 z 1 1"} {
		if d, err := parseCPU([]byte(bad)); err == nil {
			t.Errorf("parseCPU(%q) = %v, want an error", bad, d)
		}
	}
}

// A process that spins has a CPU time that grows, and its tree's is at
// least its own.
func TestCPUOfThisProcess(t *testing.T) {
	self := os.Getpid()
	before, err := CPU(self)
	if err != nil {
		t.Fatal(err)
	}
	var after time.Duration
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		x := 0
		for i := range 10_000_000 {
			x += i
		}
		_ = x
		if after, err = CPU(self); err != nil {
			t.Fatal(err)
		}
		if after >= before+50*time.Millisecond {
			break
		}
	}
	if after < before+50*time.Millisecond {
		t.Fatalf("CPU went from %v to %v after 5 s of spinning", before, after)
	}
	tree, err := TreeCPU(self)
	if err != nil || tree < after {
		t.Fatalf("TreeCPU = %v, %v; want at least %v", tree, err, after)
	}
}
