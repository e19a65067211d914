package sidecar

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// profilePrefix starts the name of every profile directory a generation
// creates in the temporary directory.
const profilePrefix = "glimpse-chromium-"

// staleProfileAge is how long a profile directory must have gone unchanged
// before a sidecar that starts takes it for left behind. A profile nobody's
// command line names is either left behind or in one of two short moments
// of a sidecar sharing the temporary directory: created but Chromium not yet
// started on it, or Chromium killed but the directory not yet removed (at
// most stopTimeout). A minute is well past both.
const staleProfileAge = time.Minute

// removeStaleProfiles deletes the profile directories in dir that an earlier
// run of a sidecar left behind: a sidecar killed outright, or its container
// restarted, never removes the profile of the Chromium it ran, and each one
// holds caches that only grow the temporary directory.
//
// A directory is removed only when all of these hold, so that sidecars that
// share the temporary directory (tests, the embedded sidecar of several
// processes) never lose a profile in use:
//   - its name starts with profilePrefix and it is a directory, not a
//     symbolic link;
//   - it belongs to the user this process runs as;
//   - no process visible under procRoot names it on its command line, which
//     every process of a generation does (--user-data-dir=DIR, or DIR/… for
//     the crash handlers);
//   - it has not changed for olderThan.
//
// Sidecars whose processes this one cannot see (another PID namespace) must
// not share its temporary directory. It returns the directories removed.
func removeStaleProfiles(dir, procRoot string, olderThan time.Duration, logger *slog.Logger) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing %s for Chromium profiles left by an earlier run: %w", dir, err)
	}
	uid := os.Getuid()
	var candidates []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), profilePrefix) || !e.IsDir() {
			continue // IsDir is false for a symbolic link, which is never followed
		}
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < olderThan {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != uid {
			continue
		}
		candidates = append(candidates, filepath.Join(dir, e.Name()))
	}
	if len(candidates) == 0 {
		return nil, nil
	}

	inUse, err := namedByProcesses(procRoot, candidates)
	if err != nil {
		// Without the list of processes nothing can be proven unused.
		return nil, err
	}
	var removed []string
	var errs []error
	for _, p := range candidates {
		if inUse[p] {
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, fmt.Errorf("removing the Chromium profile %s left by an earlier run: %w", p, err))
			continue
		}
		removed = append(removed, p)
	}
	if len(removed) > 0 {
		logger.Info("Removed Chromium profiles left behind by an earlier run.", "count", len(removed), "dir", dir)
	}
	return removed, errors.Join(errs...)
}

// namedByProcesses returns which of dirs some live process under procRoot
// names on its command line, reading each command line once.
func namedByProcesses(procRoot string, dirs []string) (map[string]bool, error) {
	pids, err := listPIDs(procRoot)
	if err != nil {
		return nil, err
	}
	named := map[string]bool{}
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("%s/%d/cmdline", procRoot, pid))
		if err != nil || len(b) == 0 {
			continue // gone, or a zombie, which holds no directory
		}
		for _, d := range dirs {
			if !named[d] && namesDir(b, d) {
				named[d] = true
			}
		}
	}
	return named, nil
}

// removeProfilesOnce runs removeStaleProfiles on the temporary directory
// profiles are created in, the first time the sidecar starts a browser.
func (s *Sidecar) removeProfilesOnce() {
	s.profilesOnce.Do(func() {
		if _, err := removeStaleProfiles(os.TempDir(), procRoot, staleProfileAge, s.logger); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.logger.Warn("Could not remove every Chromium profile left by an earlier run; the temporary directory keeps them.", "err", err)
		}
	})
}
