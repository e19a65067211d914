package sidecar

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const (
	procRoot = "/proc"

	// stderrTailLines is how much of Chromium's stderr is kept to explain a
	// failed start.
	stderrTailLines = 20

	// devToolsPrefix starts the line Chromium prints once its DevTools server
	// listens; the rest of the line is the browser's WebSocket address.
	devToolsPrefix = "DevTools listening on "
)

// process is one Chromium browser process and everything it forks. The
// browser leads its own process group, so a single signal reaches every
// helper (zygotes, renderers, GPU and utility processes) at once.
type process struct {
	pid        int
	profileDir string
	logger     *slog.Logger

	cmd     *exec.Cmd
	stderr  *os.File      // our end of Chromium's stderr pipe
	tail    *lineTail     // the last lines of stderr, for error messages
	ready   chan string   // receives the DevTools WebSocket address once
	logDone chan struct{} // closed when stderr reached EOF or was closed

	exited  chan struct{} // closed once the browser process is reaped
	waitErr error         // why it exited; written before exited closes

	mu     sync.Mutex
	strays []int // pids outside the process group, see noteStrays

	stopOnce sync.Once
	stopErr  error
}

// startProcess starts path with args in a new process group. The child gets
// SIGKILL if the thread that started it dies (Pdeathsig), so a crashed sidecar
// does not leave a browser behind.
func startProcess(path string, args []string, profileDir string, logger *slog.Logger) (*process, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("creating a pipe for Chromium's stderr: %w", err)
	}
	cmd := exec.Command(path, args...)
	cmd.Env = chromeEnv(os.Environ(), profileDir)
	// An *os.File as Stderr is handed to the child as is, so Wait does not
	// wait for the helpers that inherited it; the reader below sees EOF once
	// the last process of the generation holding it is gone.
	cmd.Stderr = w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("starting Chromium at %s: %w", path, err)
	}
	w.Close()
	leaders.Store(cmd.Process.Pid, true)

	p := &process{
		pid:        cmd.Process.Pid,
		profileDir: profileDir,
		logger:     logger,
		cmd:        cmd,
		stderr:     r,
		tail:       &lineTail{max: stderrTailLines},
		ready:      make(chan string, 1),
		logDone:    make(chan struct{}),
		exited:     make(chan struct{}),
	}
	go p.readStderr()
	go func() {
		p.waitErr = cmd.Wait()
		leaders.Delete(p.pid)
		close(p.exited)
	}()
	return p, nil
}

// leaders holds the pids of browser processes that os/exec still has to
// reap; sweep never calls wait4 on them, even if a stale pid points there.
var leaders sync.Map

// chromeEnv points Chromium's default configuration and cache directories
// into the profile. Chromium derives its crash database from them, and the
// crashpad handlers it forks call setsid, leaving the process group; with
// the database inside the profile their command line names the profile
// directory, so stop finds and kills them, and nothing is written to $HOME.
func chromeEnv(environ []string, profileDir string) []string {
	env := make([]string, 0, len(environ)+2)
	for _, kv := range environ {
		if strings.HasPrefix(kv, "XDG_CONFIG_HOME=") || strings.HasPrefix(kv, "XDG_CACHE_HOME=") || strings.HasPrefix(kv, "TMPDIR=") {
			continue
		}
		env = append(env, kv)
	}
	// TMPDIR inside the profile too: Chromium's socket directory and the
	// hidden temporary files it writes then go with the profile, even when
	// a killed browser never cleans them up.
	return append(env, "XDG_CONFIG_HOME="+profileDir, "XDG_CACHE_HOME="+filepath.Join(profileDir, "cache"), "TMPDIR="+profileDir)
}

// noteStrays remembers the processes of the generation that left its process
// group (the crashpad handlers), while they are alive and still recognisable
// by command line, so sweep can reap them after they die.
func (p *process) noteStrays() {
	ms, err := members(procRoot, p.pid, p.profileDir)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range ms {
		if m.pgrp != p.pid && !m.zombie() {
			p.strays = append(p.strays, m.pid)
		}
	}
}

// readStderr finds the DevTools line and keeps draining afterwards: a helper
// blocked on a full stderr pipe would hang the browser.
func (p *process) readStderr() {
	defer close(p.logDone)
	br := bufio.NewReaderSize(p.stderr, 16<<10)
	announced := false
	for {
		line, err := br.ReadString('\n')
		if line = strings.TrimRight(line, "\r\n"); line != "" {
			p.tail.add(line)
			if !announced {
				if ws, ok := parseDevToolsLine(line); ok {
					announced = true
					p.ready <- ws
				}
			}
			p.logger.Debug("chromium stderr", "line", line)
		}
		if err != nil {
			return
		}
	}
}

// parseDevToolsLine extracts the browser WebSocket address from
// "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/UUID".
func parseDevToolsLine(line string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), devToolsPrefix)
	if !ok {
		return "", false
	}
	u, err := url.Parse(strings.TrimSpace(rest))
	if err != nil || u.Scheme != "ws" || u.Host == "" || !strings.HasPrefix(u.Path, "/devtools/browser/") {
		return "", false
	}
	return u.String(), true
}

// waitReady waits for the DevTools line. It fails when the browser exits
// first, quoting what Chromium said on stderr, or when ctx ends.
func (p *process) waitReady(ctx context.Context) (string, error) {
	select {
	case ws := <-p.ready:
		return ws, nil
	case <-p.exited:
		// The line may have been printed just before the exit.
		select {
		case ws := <-p.ready:
			return ws, nil
		default:
		}
		// Let the reader drain what the browser said last.
		select {
		case <-p.logDone:
		case <-time.After(time.Second):
		}
		return "", fmt.Errorf("Chromium exited before it was ready (%v)%s", p.waitErr, p.tail.explain())
	case <-ctx.Done():
		return "", fmt.Errorf("Chromium did not announce its DevTools endpoint in time (%w)%s", context.Cause(ctx), p.tail.explain())
	}
}

// stop kills the whole process group, reaps the browser and every helper
// that was handed to this process to reap, waits until no process of the
// generation is left, and removes the profile directory. It is safe to call
// more than once; later calls return the first result.
func (p *process) stop(timeout time.Duration) error {
	p.stopOnce.Do(func() { p.stopErr = p.doStop(timeout) })
	return p.stopErr
}

func (p *process) doStop(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	p.noteStrays()
	// The profile is thrown away, so there is nothing to flush: SIGKILL
	// is the quickest way to a known state.
	killGroup(p.pid)

	var errs []error
	select {
	case <-p.exited:
	case <-time.After(time.Until(deadline)):
		errs = append(errs, fmt.Errorf("the Chromium browser process %d did not exit within %v of SIGKILL", p.pid, timeout))
	}

	// The leader's pid stays reserved while any process of its group lives,
	// so signalling the group after reaping the leader cannot hit a stranger.
	if left := p.sweep(deadline); len(left) > 0 {
		errs = append(errs, fmt.Errorf("processes %v of the Chromium generation with profile %s were not gone %v after SIGKILL", left, p.profileDir, timeout))
	}

	// stderr ends when the last holder is gone; close it anyway so the reader
	// cannot outlive the generation if some descendant kept the pipe.
	select {
	case <-p.logDone:
	case <-time.After(500 * time.Millisecond):
	}
	p.stderr.Close()
	<-p.logDone

	if err := removeSingletonDir(p.profileDir); err != nil {
		errs = append(errs, err)
	}
	if err := removeProfile(p.profileDir); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// singletonDirPrefixes name the directories Chromium (or Chrome) creates
// under $TMPDIR for its singleton socket.
var singletonDirPrefixes = []string{"org.chromium.Chromium.", "com.google.Chrome."}

// removeSingletonDir removes the directory of the profile's singleton
// socket. Chromium creates it under $TMPDIR, outside the profile, and links
// it from the profile; a browser that is killed leaves it behind, one per
// generation. Only a directory named the way Chromium names it is removed.
func removeSingletonDir(profileDir string) error {
	target, err := os.Readlink(filepath.Join(profileDir, "SingletonSocket"))
	if err != nil {
		return nil // the browser died before creating it
	}
	dir := filepath.Dir(target)
	for _, prefix := range singletonDirPrefixes {
		if strings.HasPrefix(filepath.Base(dir), prefix) {
			if err := os.RemoveAll(dir); err != nil {
				return fmt.Errorf("removing Chromium's socket directory %s: %w", dir, err)
			}
			return nil
		}
	}
	return nil
}

// sweep kills what is left of the generation and reaps the zombies handed to
// this process (it is a child subreaper, or pid 1 in a container). It
// returns the pids not yet gone when the deadline passes.
//
// Helpers die in cascades: a renderer's parent is a zygote, whose parent was
// the browser, so a dead renderer is reparented here only once the zygote is
// reaped. A zombie is therefore awaited while its parent belongs to the
// generation, and tolerated only once some process outside adopted it.
func (p *process) sweep(deadline time.Time) []int {
	self := os.Getpid()
	// A zombie has no command line, so a process that left the group is
	// recognised only while alive; remember it to reap it once dead.
	known := map[int]bool{}
	p.mu.Lock()
	for _, pid := range p.strays {
		known[pid] = true
	}
	p.mu.Unlock()
	for {
		ms, err := members(procRoot, p.pid, p.profileDir)
		if err != nil {
			p.logger.Warn("Could not list processes to confirm that Chromium is gone.", "err", err)
			return nil
		}
		matched := make(map[int]bool, len(ms))
		for _, m := range ms {
			matched[m.pid] = true
			known[m.pid] = true
		}
		var left []int
		for pid := range known {
			if pid == p.pid {
				// os/exec reaps the leader; wait4 on it here would steal its status.
				if _, err := readStat(procRoot, pid); err != nil {
					delete(known, pid)
				}
				continue
			}
			st, err := readStat(procRoot, pid)
			switch {
			case err != nil:
				delete(known, pid) // gone
			case !st.zombie() && matched[pid]:
				_ = unix.Kill(pid, unix.SIGKILL)
				left = append(left, pid)
			case !st.zombie() && (st.ppid == self || known[st.ppid]):
				// Exiting: the command line empties before the state turns Z.
				left = append(left, pid)
			case !st.zombie():
				delete(known, pid) // someone else's now: the pid was reused
			case st.ppid == self:
				if _, owned := leaders.Load(pid); owned {
					delete(known, pid) // a browser of another generation now has this pid
					continue
				}
				var ws unix.WaitStatus
				if n, _ := unix.Wait4(pid, &ws, unix.WNOHANG, nil); n == pid {
					delete(known, pid)
				} else {
					left = append(left, pid)
				}
			case known[st.ppid]:
				left = append(left, pid) // its parent is dying too; it comes here next
			default:
				delete(known, pid) // adopted outside the generation; its adopter reaps it
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func killGroup(pgid int) {
	if pgid > 0 {
		_ = unix.Kill(-pgid, unix.SIGKILL)
	}
}

// removeProfile deletes a generation's profile directory. Chromium's helpers
// may still be unlinking files as they die, so a failure is retried briefly.
func removeProfile(dir string) error {
	var err error
	for range 5 {
		if err = os.RemoveAll(dir); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("removing Chromium's profile directory %s: %w", dir, err)
}

var subreaperOnce sync.Once

// becomeSubreaper makes this process adopt orphaned descendants, so the
// helpers of a browser that died are reparented here and reaped by sweep
// instead of lingering as zombies under an init that may not reap (or, in a
// container, under this very process as pid 1).
func becomeSubreaper(logger *slog.Logger) {
	subreaperOnce.Do(func() {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			logger.Warn("Could not become a child subreaper; Chromium's helpers are reaped by init instead.", "err", err)
		}
	})
}

// lineTail keeps the last lines written to it.
type lineTail struct {
	mu    sync.Mutex
	max   int
	lines []string
}

func (t *lineTail) add(line string) {
	// D-Bus complaints are printed on every start in a container and say
	// nothing about why a start failed.
	if strings.Contains(line, ":ERROR:dbus/") {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > t.max {
		t.lines = append(t.lines[:0:0], t.lines[len(t.lines)-t.max:]...)
	}
}

// explain returns "; Chromium said: …" or "" when it said nothing useful.
func (t *lineTail) explain() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.lines) == 0 {
		return ""
	}
	return "; Chromium said: " + strings.Join(t.lines, " | ")
}
