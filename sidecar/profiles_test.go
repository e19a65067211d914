package sidecar

import (
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// holdDirs starts a real process whose command line names each of args, as
// a Chromium of another sidecar names its profile, and ends it when the test
// does. The shell waits on a builtin, so it has no child of its own to leave
// behind.
func holdDirs(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", append([]string{"-c", "read line", "profile-holder"}, args...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	eventually(t, 5*time.Second, "the holder process showing its command line", func() bool {
		return len(liveProcessesWith(t, args[0])) > 0
	})
}

// makeAged creates a directory holding a file, then dates both age ago.
func makeAged(t *testing.T, p string, age time.Duration) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(p, "Default", "Cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p, "Default", "Cache", "data_1"), []byte("cached"), 0o644); err != nil {
		t.Fatal(err)
	}
	when := time.Now().Add(-age)
	for _, q := range []string{filepath.Join(p, "Default", "Cache"), filepath.Join(p, "Default"), p} {
		if err := os.Chtimes(q, when, when); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRemoveStaleProfiles(t *testing.T) {
	const old = 10 * time.Minute
	dir := t.TempDir()
	elsewhere := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }

	makeAged(t, path(profilePrefix+"left"), old)
	makeAged(t, path(profilePrefix+"fresh"), 5*time.Second)
	makeAged(t, path(profilePrefix+"in-use"), old)
	makeAged(t, path(profilePrefix+"crashpad-45"), old)
	makeAged(t, path(profilePrefix+"crashpad-4"), old)
	makeAged(t, path("chromium-other-program"), old)
	makeAged(t, filepath.Join(elsewhere, "target"), old)
	if err := os.WriteFile(path(profilePrefix+"a-file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(elsewhere, "target"), path(profilePrefix+"a-link")); err != nil {
		t.Fatal(err)
	}
	if when := time.Now().Add(-old); os.Chtimes(path(profilePrefix+"a-file"), when, when) != nil {
		t.Fatal("could not date the file")
	}
	// One process names a profile as Chromium's browser does, another the
	// way its crash handler does, by a path inside it.
	holdDirs(t, "--user-data-dir="+path(profilePrefix+"in-use"))
	holdDirs(t, "--database="+path(profilePrefix+"crashpad-45")+"/Crashpad")

	removed, err := removeStaleProfiles(dir, procRoot, time.Minute, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("removeStaleProfiles: %v", err)
	}

	cases := []struct {
		name string
		path string
		kept bool
	}{
		{"an old profile no process names is removed", path(profilePrefix + "left"), false},
		{"a profile younger than the grace period is kept, its browser may be about to start", path(profilePrefix + "fresh"), true},
		{"an old profile a running browser names is kept", path(profilePrefix + "in-use"), true},
		{"an old profile named by a path inside it is kept", path(profilePrefix + "crashpad-45"), true},
		{"an old profile whose name only begins another's that is in use is removed", path(profilePrefix + "crashpad-4"), false},
		{"a directory without glimpse's prefix is kept", path("chromium-other-program"), true},
		{"a file with glimpse's prefix is kept", path(profilePrefix + "a-file"), true},
		{"a symbolic link with glimpse's prefix is kept", path(profilePrefix + "a-link"), true},
		{"what a symbolic link points to is not touched", filepath.Join(elsewhere, "target", "Default", "Cache", "data_1"), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := os.Lstat(tc.path)
			if kept := err == nil; kept != tc.kept {
				t.Errorf("%s kept: %v (%v); want %v", tc.path, kept, err, tc.kept)
			}
		})
	}
	t.Run("the result lists exactly what was removed", func(t *testing.T) {
		want := map[string]bool{path(profilePrefix + "left"): true, path(profilePrefix + "crashpad-4"): true}
		if len(removed) != len(want) {
			t.Errorf("removed %v; want %v", removed, want)
		}
		for _, p := range removed {
			if !want[p] {
				t.Errorf("removed %s, which it should not have", p)
			}
		}
	})
}

func TestRemoveStaleProfilesRemovesNothingWithoutTheProcessList(t *testing.T) {
	dir := t.TempDir()
	makeAged(t, filepath.Join(dir, profilePrefix+"old"), time.Hour)
	_, err := removeStaleProfiles(dir, filepath.Join(dir, "no-proc"), time.Minute, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil {
		t.Error("removeStaleProfiles succeeded without a process list; want an error")
	}
	if _, err := os.Stat(filepath.Join(dir, profilePrefix+"old")); err != nil {
		t.Errorf("a profile was removed without proof that no process uses it: %v", err)
	}
}

func TestStartRemovesProfilesLeftByAnEarlierRun(t *testing.T) {
	isolateTemp(t)
	left := filepath.Join(os.TempDir(), profilePrefix+"from-a-killed-sidecar")
	makeAged(t, left, time.Hour)

	startSidecar(t, Config{})

	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("the profile left by an earlier run is still there after Start (%v)", err)
	}
	if dirs := profileDirs(t); len(dirs) != 1 {
		t.Errorf("the temporary directory holds profiles %v; want only the running browser's", dirs)
	}
}
