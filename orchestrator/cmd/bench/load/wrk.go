package load

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// wrkScript makes wrk print one machine-readable line at the end, with the
// percentiles its own summary leaves out (p95) and every error class.
const wrkScript = `done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("GLIMPSE_WRK %d %d %d %d %d %d %d %d %d %d %.0f\n",
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.mean))
end
`

// ErrNoWrk means wrk is not installed; `.ci/deps.sh bench` installs it.
var ErrNoWrk = errors.New("wrk is not installed: run `./.ci/deps.sh bench` or `apt-get install -y wrk`")

// WrkPlan is one wrk run against one URL.
type WrkPlan struct {
	URL         string
	Threads     int
	Connections int
	Duration    time.Duration
	Timeout     time.Duration // a slower answer counts as failed (wrk's default is 2s)
}

// Wrk runs wrk with plan and returns its summary; any connect, read, write,
// timeout error or HTTP status of 400 and above counts as a failure.
func Wrk(ctx context.Context, plan WrkPlan) (Summary, error) {
	bin, err := exec.LookPath("wrk")
	if err != nil {
		return Summary{}, ErrNoWrk
	}
	dir, err := os.MkdirTemp("", "wrk-script-")
	if err != nil {
		return Summary{}, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "report.lua")
	if err := os.WriteFile(script, []byte(wrkScript), 0o600); err != nil {
		return Summary{}, err
	}
	timeout := plan.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	args := []string{
		"-t", strconv.Itoa(max(1, plan.Threads)),
		"-c", strconv.Itoa(max(1, plan.Connections)),
		"-d", strconv.Itoa(max(1, int(plan.Duration.Round(time.Second)/time.Second))) + "s",
		"--timeout", strconv.Itoa(max(1, int(timeout.Round(time.Second)/time.Second))) + "s",
		"-s", script, plan.URL,
	}
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return Summary{}, fmt.Errorf("wrk failed: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return ParseWrk(out.String())
}

// ParseWrk reads the line wrkScript prints.
func ParseWrk(out string) (Summary, error) {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 12 || f[0] != "GLIMPSE_WRK" {
			continue
		}
		var n [11]int64
		for i := range n {
			v, err := strconv.ParseFloat(f[i+1], 64)
			if err != nil {
				return Summary{}, fmt.Errorf("wrk printed %q, which is not a number, in %q", f[i+1], sc.Text())
			}
			n[i] = int64(v)
		}
		us := func(v int64) time.Duration { return time.Duration(v) * time.Microsecond }
		s := Summary{
			Requests: int(n[0]),
			Elapsed:  us(n[1]),
			Failures: int(n[2] + n[3] + n[4] + n[5] + n[6]),
			P50:      us(n[7]), P95: us(n[8]), P99: us(n[9]), Mean: us(n[10]),
		}
		if s.Elapsed > 0 {
			s.RPS = float64(s.Requests) / s.Elapsed.Seconds()
		}
		return s, nil
	}
	return Summary{}, fmt.Errorf("wrk did not print its summary line; its output was: %q", strings.TrimSpace(out))
}
