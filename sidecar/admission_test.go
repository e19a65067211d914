package sidecar

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

func TestTheDefaultPageLimitFollowsTheMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int64
		want  int
	}{
		{"no memory limit takes the stated default", 0, DefaultMaxPages},
		{"a 3 GiB container fits five pages beside the browser", 3 << 30, 5},
		{"a 1 GiB container fits one", 1 << 30, 1},
		{"a container smaller than the browser still admits one", 256 << 20, 1},
		{"a 16 GiB container fits thirty-one", 16 << 30, 31},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MaxPagesFor(tc.limit); got != tc.want {
				t.Errorf("MaxPagesFor(%d) = %d, want %d", tc.limit, got, tc.want)
			}
		})
	}
}

func TestTheMemoryLimitIsReadFromTheCgroup(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		want          int64
		ok            bool
	}{
		{"cgroup v2 with a limit", "3221225472\n", 3 << 30, true},
		{"cgroup v2 without one", "max\n", 0, true},
		{"cgroup v1 without one", "9223372036854771712\n", 0, true},
		{"an unreadable value", "lots\n", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if n, ok := readMemoryLimit(p); n != tc.want || ok != tc.ok {
				t.Errorf("got %d, %v; want %d, %v", n, ok, tc.want, tc.ok)
			}
		})
	}
	if _, ok := readMemoryLimit(filepath.Join(dir, "missing")); ok {
		t.Error("a missing file was read")
	}
}

func TestTheSidecarBinaryTakesAPageLimit(t *testing.T) {
	old := memoryLimit
	memoryLimit = func() int64 { return 2 << 30 }
	defer func() { memoryLimit = old }()
	for _, tc := range []struct {
		name, value string
		want        int
	}{
		{"auto derives it from the memory limit", "", 3},
		{"auto spelt out", "auto", 3},
		{"a number is taken as it is", "12", 12},
		{"0 admits any number", "0", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{}
			if tc.value != "" {
				env["GLIMPSE_SIDECAR_MAX_PAGES"] = tc.value
			}
			cfg, err := ParseFlags(nil, withToken(env), &bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Sidecar.MaxPages != tc.want {
				t.Errorf("MaxPages = %d, want %d", cfg.Sidecar.MaxPages, tc.want)
			}
		})
	}
	_, err := ParseFlags(nil, withToken(map[string]string{"GLIMPSE_SIDECAR_MAX_PAGES": "-2"}), &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "GLIMPSE_SIDECAR_MAX_PAGES") || !strings.Contains(err.Error(), "want auto") {
		t.Errorf("a negative limit: %v", err)
	}
}

// The proxy answers a page past the limit itself, with the code the pool
// reads as "full", counts pages over every client, and gives back the
// pages of a client that goes away.
func TestTheProxyAdmitsPagesUpToTheLimitOverAllClients(t *testing.T) {
	up, _, received := recordingUpstream(t)
	s, _, srv := proxyFixture(t, wsURLOf(up), StatusOK)
	s.admission = &admission{max: 2}
	a, b := dialProxy(t, srv), dialProxy(t, srv)
	send := func(c *websocket.Conn, msg string) string {
		t.Helper()
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		_, got, err := c.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		return string(got)
	}
	create := func(id string) string {
		return `{"id":` + id + `,"method":"Target.createBrowserContext","params":{"disposeOnDetach":true}}`
	}
	if got := send(a, create("1")); got != create("1") {
		t.Fatalf("the first page was answered %s", got)
	}
	if got := send(b, create("2")); got != create("2") {
		t.Fatalf("the second page, of another client, was answered %s", got)
	}
	want := `{"id":3,"error":{"code":-32090,"message":"glimpse's sidecar is full: it admits at most 2 pages at once (GLIMPSE_SIDECAR_MAX_PAGES); try another sidecar or wait for a page to close"}}`
	if got := send(a, create("3")); got != want {
		t.Errorf("a third page was answered\n%s\nwant\n%s", got, want)
	}
	// The fixture has no browser for Health to measure; it reads these.
	if limit, admitted, refused := s.admission.counts(); limit != 2 || admitted != 2 || refused != 1 {
		t.Errorf("%d of %d admitted, %d refused; want 2 of 2, 1", admitted, limit, refused)
	}
	if s.CDPRefusals()["method"]+s.CDPRefusals()["params"] != 0 {
		t.Errorf("a full sidecar was counted as a refused command: %v", s.CDPRefusals())
	}
	dispose := `{"id":4,"method":"Target.disposeBrowserContext","params":{"browserContextId":"C1"}}`
	if got := send(a, dispose); got != dispose {
		t.Fatalf("disposing was answered %s", got)
	}
	if got := send(b, create("5")); got != create("5") {
		t.Errorf("after a dispose a page was answered %s", got)
	}
	b.Close()
	eventually(t, 5*time.Second, "the pages of a client that went away to be given back", func() bool {
		_, admitted, _ := s.admission.counts()
		return admitted == 0
	})
	for len(received) > 0 {
		if msg := <-received; strings.Contains(string(msg), `"id":3,`) {
			t.Errorf("the refused page reached Chromium: %s", msg)
		}
	}
}
