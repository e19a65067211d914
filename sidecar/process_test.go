package sidecar

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseDevToolsLine(t *testing.T) {
	tests := []struct {
		name string
		line string
		want string
	}{
		{name: "the browser address is taken from the line", line: "DevTools listening on ws://127.0.0.1:39983/devtools/browser/b4e2-11", want: "ws://127.0.0.1:39983/devtools/browser/b4e2-11"},
		{name: "surrounding blanks are ignored", line: "  DevTools listening on ws://127.0.0.1:1/devtools/browser/x \r", want: "ws://127.0.0.1:1/devtools/browser/x"},
		{name: "a log line is not the announcement", line: "[1:2:ERROR:dbus/bus.cc:405] Failed to connect to the bus", want: ""},
		{name: "a page endpoint is not the browser endpoint", line: "DevTools listening on ws://127.0.0.1:1/devtools/page/x", want: ""},
		{name: "an address that is not a WebSocket is refused", line: "DevTools listening on http://127.0.0.1:1/devtools/browser/x", want: ""},
		{name: "an address without a host is refused", line: "DevTools listening on ws:///devtools/browser/x", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseDevToolsLine(tt.line)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("parseDevToolsLine = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}

func TestLineTail(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{name: "nothing said explains nothing", want: ""},
		{name: "the last lines are kept in order", lines: []string{"a", "b", "c", "d"}, want: "; Chromium said: b | c | d"},
		{name: "D-Bus complaints are left out", lines: []string{"[1:2:1121/021859.07:ERROR:dbus/bus.cc:405] Failed to connect to the bus", "real problem"}, want: "; Chromium said: real problem"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tail := &lineTail{max: 3}
			for _, l := range tt.lines {
				tail.add(l)
			}
			if got := tail.explain(); got != tt.want {
				t.Errorf("explain = %q, want %q", got, tt.want)
			}
		})
	}
}

// fakeBrowserProfile makes a profile directory as launch does.
func fakeBrowserProfile(t *testing.T) string {
	t.Helper()
	dir, err := newProfileDir()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestStopKillsAndReapsEveryProcessOfTheGeneration(t *testing.T) {
	becomeSubreaper(testLogger(t))
	pidFile := filepath.Join(t.TempDir(), "pids")
	// A stand-in for Chromium's tree: a helper, a double-forked orphan, and
	// a process that left the process group but names the profile directory.
	script := writeScript(t, `
dir="$1"; pids="$2"
sleep 60 & echo $! >> "$pids"
( sleep 60 & echo $! >> "$pids" ) &
touch "$dir/log"
setsid tail -f "$dir/log" & echo $! >> "$pids"
echo "DevTools listening on ws://127.0.0.1:1/devtools/browser/fake" >&2
exec sleep 60
`)
	dir := fakeBrowserProfile(t)
	p, err := startProcess(script, []string{dir, pidFile}, dir, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, err := p.waitReady(ctx)
	if err != nil {
		t.Fatalf("waitReady: %v", err)
	}
	if ws != "ws://127.0.0.1:1/devtools/browser/fake" {
		t.Errorf("waitReady = %q", ws)
	}
	var pids []int
	eventually(t, 5*time.Second, "the helpers recording their pids", func() bool {
		b, _ := os.ReadFile(pidFile)
		pids = pids[:0]
		for f := range strings.FieldsSeq(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				pids = append(pids, n)
			}
		}
		return len(pids) == 3
	})
	pids = append(pids, p.pid)

	if err := p.stop(5 * time.Second); err != nil {
		t.Fatalf("stop: %v", err)
	}
	for _, pid := range pids {
		// Gone entirely: killed and reaped, not left as a zombie.
		if st, err := readStat(procRoot, pid); err == nil {
			t.Errorf("process %d is still in /proc after stop (state %c, parent %d)", pid, st.state, st.ppid)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the profile directory still exists after stop: %v", err)
	}
	if err := p.stop(time.Second); err != nil {
		t.Errorf("a second stop = %v, want the first result (nil)", err)
	}
}

func TestWaitReadyFailures(t *testing.T) {
	tests := []struct {
		name    string
		script  string
		timeout time.Duration
		want    []string
		notWant []string
	}{
		{
			name: "an early exit is explained with the exit status and Chromium's last words",
			script: `echo "[1:2:1121/021859.07:ERROR:dbus/bus.cc:405] Failed to connect to the bus" >&2
echo "Missing X server or \$DISPLAY" >&2
exit 3`,
			timeout: 10 * time.Second,
			want:    []string{"exited before it was ready", "exit status 3", "Missing X server"},
			notWant: []string{"dbus"},
		},
		{
			name:    "a browser that never announces DevTools runs out of time",
			script:  "echo starting >&2\nexec sleep 60",
			timeout: 300 * time.Millisecond,
			want:    []string{"did not announce its DevTools endpoint in time", "deadline exceeded", "starting"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fakeBrowserProfile(t)
			p, err := startProcess(writeScript(t, tt.script), nil, dir, testLogger(t))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			_, err = p.waitReady(ctx)
			if stopErr := p.stop(5 * time.Second); stopErr != nil {
				t.Errorf("stop: %v", stopErr)
			}
			if err == nil {
				t.Fatal("waitReady succeeded, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(err.Error(), w) {
					t.Errorf("error %q mentions %q", err, w)
				}
			}
			if pids := liveProcessesWith(t, dir); len(pids) > 0 {
				t.Errorf("processes %v are left after stop", pids)
			}
		})
	}
}

func TestStartProcessReportsAMissingBinary(t *testing.T) {
	dir := fakeBrowserProfile(t)
	_, err := startProcess(filepath.Join(t.TempDir(), "no-such-chromium"), nil, dir, testLogger(t))
	if err == nil || !strings.Contains(err.Error(), "starting Chromium at") {
		t.Fatalf("startProcess = %v, want an error naming the binary", err)
	}
}
