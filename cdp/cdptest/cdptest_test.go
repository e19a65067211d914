package cdptest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/cdp/cdptest"
)

// dial connects glimpse's client to a scripted browser.
func dial(t *testing.T, s *cdptest.Server) *cdp.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cdptest.WaitLimit)
	defer cancel()
	c, err := cdp.Dial(ctx, s.URL(), cdp.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestAScriptAnswersAsABrowserWould(t *testing.T) {
	cases := []struct {
		name    string
		handler cdptest.Handler
		timeout time.Duration
		check   func(t *testing.T, raw json.RawMessage, err error, took time.Duration)
	}{
		{
			name: "a result is the reply", handler: cdptest.Result(map[string]int{"n": 7}),
			check: func(t *testing.T, raw json.RawMessage, err error, _ time.Duration) {
				if err != nil || string(raw) != `{"n":7}` {
					t.Errorf("got %s, %v", raw, err)
				}
			},
		},
		{
			name: "an error is the browser's refusal", handler: cdptest.Error(-32602, "Invalid parameters"),
			check: func(t *testing.T, _ json.RawMessage, err error, _ time.Duration) {
				var pe *cdp.Error
				if !errors.As(err, &pe) || pe.Code != -32602 || pe.Method != "Test.method" {
					t.Errorf("got %v; want the browser's refusal", err)
				}
			},
		},
		{
			name: "an unknown method is refused as Chromium refuses it", handler: cdptest.NotFound,
			check: func(t *testing.T, _ json.RawMessage, err error, _ time.Duration) {
				if err == nil || !strings.Contains(err.Error(), "'Test.method' wasn't found (code -32601)") {
					t.Errorf("got %v", err)
				}
			},
		},
		{
			name: "a late reply comes late", handler: cdptest.After(100*time.Millisecond, cdptest.Result(nil)),
			check: func(t *testing.T, _ json.RawMessage, err error, took time.Duration) {
				if err != nil || took < 100*time.Millisecond {
					t.Errorf("got %v after %v; want a reply after 100ms", err, took)
				}
			},
		},
		{
			name: "a silent browser leaves the call to its deadline", handler: cdptest.Silent, timeout: 100 * time.Millisecond,
			check: func(t *testing.T, _ json.RawMessage, err error, _ time.Duration) {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("got %v; want the deadline", err)
				}
			},
		},
		{
			name: "a dropped connection fails the call", handler: cdptest.Drop,
			check: func(t *testing.T, _ json.RawMessage, err error, _ time.Duration) {
				if !errors.Is(err, cdp.ErrClosed) {
					t.Errorf("got %v; want the connection closed", err)
				}
			},
		},
		{
			name: "a malformed reply fails the call it names", handler: func(c *cdptest.Call) { _ = c.Send(fmt.Sprintf(`{"id":%d,"error":"not an object"}`, c.ID)) },
			check: func(t *testing.T, _ json.RawMessage, err error, _ time.Duration) {
				if err == nil || !strings.Contains(err.Error(), "malformed") {
					t.Errorf("got %v; want a malformed reply", err)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := cdptest.NewServer(t)
			s.Handle("Test.method", tc.handler)
			c := dial(t, s)
			timeout := tc.timeout
			if timeout == 0 {
				timeout = cdptest.WaitLimit
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			start := time.Now()
			var raw json.RawMessage
			err := c.Browser().Call(ctx, "Test.method", map[string]string{"k": "v"}, &raw)
			tc.check(t, raw, err, time.Since(start))
			p := s.Accept()
			if got := p.Sent("Test.method"); len(got) != 1 || string(got[0].Params) != `{"k":"v"}` {
				t.Errorf("the browser recorded %+v; want the one call with its params", got)
			}
		})
	}
}

func TestSequenceAndEventsAndCrashes(t *testing.T) {
	s := cdptest.NewServer(t)
	s.Handle("Target.attachToTarget", cdptest.Result(`{"sessionId":"S1"}`))
	s.Handle("Test.count", cdptest.Sequence(cdptest.Result(`{"n":1}`), cdptest.Result(`{"n":2}`)))
	s.Handle("Test.notify", func(c *cdptest.Call) {
		_ = c.Event("Test.noticed", `{"ok":true}`)
		_ = c.Reply(nil)
	})
	c := dial(t, s)
	ctx := context.Background()
	for _, want := range []string{`{"n":1}`, `{"n":2}`, `{"n":2}`} {
		var raw json.RawMessage
		if err := c.Browser().Call(ctx, "Test.count", nil, &raw); err != nil || string(raw) != want {
			t.Fatalf("got %s, %v; want %s", raw, err, want)
		}
	}
	sess, err := c.Attach(ctx, "T1")
	if err != nil {
		t.Fatal(err)
	}
	events, _ := sess.Listen("Test.noticed")
	if err := sess.Call(ctx, "Test.notify", nil, nil); err != nil {
		t.Fatal(err)
	}
	if ev := <-events; ev.Method != "Test.noticed" {
		t.Errorf("the session heard %+v", ev)
	}
	p := s.Accept()
	p.Crash("T1", "S1")
	select {
	case <-sess.Done():
	case <-time.After(cdptest.WaitLimit):
		t.Fatal("the crashed page's session did not end")
	}
	if got := p.Received(); len(got) != 5 || got[4].SessionID != "S1" {
		t.Errorf("the browser recorded %+v", got)
	}
}

func TestPlainHTTPIsServedBesideTheDevToolsEndpoint(t *testing.T) {
	s := cdptest.NewServer(t)
	s.HandleHTTP("/healthz", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	}))
	for path, want := range map[string]int{"/healthz": http.StatusOK, "/elsewhere": http.StatusNotFound} {
		resp, err := http.Get("http://" + s.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s answered %d; want %d", path, resp.StatusCode, want)
		}
	}
	dial(t, s) // the DevTools endpoint still upgrades
}
