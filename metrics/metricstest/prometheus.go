package metricstest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/glimpse/glimpse/internal/testtool"
)

// Prometheus is a real Prometheus server a test started, on a loopback
// port, with its storage in the test's temporary directory.
type Prometheus struct {
	URL     string
	logPath string
}

// client bounds each call, so a wedged server fails the test instead of
// hanging it.
var client = &http.Client{Timeout: 60 * time.Second}

// StartPrometheus runs Debian's prometheus with config and waits until it
// is ready; it is stopped when the test ends. A missing binary fails the
// test (skips it under -short) naming the package to install; a port taken between choosing and
// binding it is retried on another.
func StartPrometheus(t testing.TB, config string) *Prometheus {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		testtool.Missingf(t, "the prometheus binary is not installed: install Debian's prometheus package (apt-get install prometheus), which also provides promtool")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	for attempt := 1; ; attempt++ {
		p, err := runPrometheus(t, bin, cfg, filepath.Join(dir, fmt.Sprintf("data-%d", attempt)), filepath.Join(dir, fmt.Sprintf("prometheus-%d.log", attempt)))
		if err == nil {
			return p
		}
		if attempt == 3 || !strings.Contains(err.Error(), "address already in use") {
			t.Fatal(err)
		}
	}
}

func runPrometheus(t testing.TB, bin, cfg, data, logPath string) (*Prometheus, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		logFile.Close()
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+data, "--web.listen-address="+addr)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Prometheus must not outlive a test binary that crashes.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		logFile.Close()
	})
	p := &Prometheus{URL: "http://" + addr, logPath: logPath}
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-exited:
			return nil, fmt.Errorf("prometheus exited before it was ready (%v); its log:\n%s", waitErr, p.LogTail())
		default:
		}
		if resp, err := client.Get(p.URL + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("prometheus was not ready after 30 s; its log:\n%s", p.LogTail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// LogTail is the end of the server's log, for a failure message.
func (p *Prometheus) LogTail() string {
	b, _ := os.ReadFile(p.logPath)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// API GETs a path of Prometheus' HTTP API and decodes the data of a success.
func (p *Prometheus) API(path string, params url.Values, data any) error {
	resp, err := client.Get(p.URL + path + "?" + params.Encode())
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var body struct {
		Status    string          `json:"status"`
		ErrorType string          `json:"errorType"`
		Error     string          `json:"error"`
		Data      json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return fmt.Errorf("%s answered %d with something that is not the API's JSON: %w", path, resp.StatusCode, err)
	}
	if body.Status != "success" {
		return fmt.Errorf("%s answered %s: %s", path, body.ErrorType, body.Error)
	}
	return json.Unmarshal(body.Data, data)
}

// Sample is one series of an instant query's answer.
type Sample struct {
	Labels map[string]string
	Value  float64
}

func (s Sample) String() string {
	keys := make([]string, 0, len(s.Labels))
	for k := range s.Labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	ls := make([]string, len(keys))
	for i, k := range keys {
		ls[i] = k + "=" + strconv.Quote(s.Labels[k])
	}
	return "{" + strings.Join(ls, ", ") + "} " + strconv.FormatFloat(s.Value, 'g', 4, 64)
}

// Query runs an instant query at the present time; anything but an
// instant vector is an error, since that is what a panel must give.
func (p *Prometheus) Query(expr string) ([]Sample, error) {
	var data struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		} `json:"result"`
	}
	if err := p.API("/api/v1/query", url.Values{"query": {expr}}, &data); err != nil {
		return nil, fmt.Errorf("query %s: %w", expr, err)
	}
	if data.ResultType != "vector" {
		return nil, fmt.Errorf("query %s gave a %s; a panel query must give an instant vector", expr, data.ResultType)
	}
	out := make([]Sample, 0, len(data.Result))
	for _, r := range data.Result {
		s, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("query %s gave the value %v, which is not a number", expr, r.Value[1])
		}
		out = append(out, Sample{Labels: r.Metric, Value: v})
	}
	return out, nil
}

// WaitScrapedAfter waits until every one of targets has been scraped, and
// found up, after since.
func (p *Prometheus) WaitScrapedAfter(t testing.TB, since time.Time, targets int) {
	t.Helper()
	var last []Sample
	var lastErr error
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		// timestamp() gives the scrape's time only when applied to a
		// selector itself; on any other expression it gives the query's.
		last, lastErr = p.Query(`timestamp(up) and up == 1`)
		fresh := 0
		for _, s := range last {
			if s.Value > float64(since.UnixMilli())/1000 {
				fresh++
			}
		}
		if lastErr == nil && fresh == targets {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("Prometheus did not scrape all %d targets successfully after %s within 20 s (last answer %v, %v); its log:\n%s",
		targets, since.Format(time.RFC3339Nano), last, lastErr, p.LogTail())
}

// Scrapes waits for n more scrapes of every one of targets.
func (p *Prometheus) Scrapes(t testing.TB, n, targets int) {
	t.Helper()
	for range n {
		p.WaitScrapedAfter(t, time.Now(), targets)
	}
}
