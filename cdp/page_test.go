package cdp_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/cdp/cdptest"
)

// dialPage opens a connection to the scripted browser as if to one page's
// own endpoint, with the given read limit.
func dialPage(t *testing.T, s *cdptest.Server, limit int64) *cdp.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := cdp.Dial(ctx, s.URL(), cdp.WithPageTarget("T1"), cdp.WithReadLimit(limit))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestAPageConnectionEndsAloneAndSaysWhy(t *testing.T) {
	cases := []struct {
		name  string
		send  func(p *cdptest.Peer, m cdptest.Message)
		want  error
		wantS string
	}{
		{"a reply over the read limit ends the page's connection as too large",
			func(p *cdptest.Peer, m cdptest.Message) {
				p.Reply(m, `{"result":{"type":"string","value":"`+strings.Repeat("x", 4096)+`"}}`)
			}, cdp.ErrMessageTooLarge, "read limit"},
		{"a crashed page ends its connection as a closed session",
			func(p *cdptest.Peer, _ cdptest.Message) { p.Event("", "Inspector.targetCrashed", map[string]any{}) },
			cdp.ErrSessionClosed, "Inspector.targetCrashed"},
		{"a detached page ends its connection as a closed session",
			func(p *cdptest.Peer, _ cdptest.Message) {
				p.Event("", "Inspector.detached", map[string]string{"reason": "target_closed"})
			},
			cdp.ErrSessionClosed, "Inspector.detached"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := cdptest.NewServer(t)
			page := dialPage(t, s, 1024)
			p := s.Accept()
			if got := page.Browser().TargetID(); got != "T1" {
				t.Fatalf("the page connection's root session names target %q, want T1", got)
			}
			done := make(chan error, 1)
			go func() {
				done <- page.Browser().Call(context.Background(), "Runtime.evaluate", map[string]string{"expression": "1"}, nil)
			}()
			m := p.Expect("Runtime.evaluate", "")
			tc.send(p, m)
			select {
			case err := <-done:
				if !errors.Is(err, tc.want) || !errors.Is(err, cdp.ErrClosed) {
					t.Fatalf("the call failed with %v, want an error wrapping %v and ErrClosed", err, tc.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the pending call was not failed when the page's connection ended")
			}
			select {
			case <-page.Done():
			case <-time.After(5 * time.Second):
				t.Fatal("the page's connection did not end")
			}
			err := page.Browser().Err()
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.wantS) {
				t.Errorf("Session.Err() = %v, want it to wrap %v and say %q", err, tc.want, tc.wantS)
			}
		})
	}
}

func TestABrowserConnectionIgnoresInspectorEventsOnItsRoot(t *testing.T) {
	s := cdptest.NewServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := cdp.Dial(ctx, s.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p := s.Accept()
	p.Event("", "Inspector.targetCrashed", map[string]any{})
	select {
	case <-c.Done():
		t.Fatalf("the browser's connection ended on a root Inspector event: %v", c.Err())
	case <-time.After(100 * time.Millisecond):
	}
	if err := c.Browser().Err(); err != nil {
		t.Errorf("the browser session ended: %v", err)
	}
}
