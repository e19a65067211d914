package cdp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"

	"github.com/glimpse/glimpse/cdp/cdptest"
)

// waitLimit bounds every wait in the protocol tests; nothing here should
// take more than a few milliseconds, so hitting it means a hang.
const waitLimit = cdptest.WaitLimit

// opener starts a Conn and its browser peer over one kind of transport.
type opener struct {
	name string
	open func(t *testing.T, opts ...Option) (*Conn, *cdptest.Peer)
}

// transports runs each protocol scenario over the Transport seam and over a
// real WebSocket from Dial.
var transports = []opener{
	{"over an in-memory transport", openPipe},
	{"over a WebSocket from Dial", openWebSocket},
}

func openPipe(t *testing.T, opts ...Option) (*Conn, *cdptest.Peer) {
	t.Helper()
	pipe, p := cdptest.NewPipe(t)
	c := New(pipe, append([]Option{WithLogger(discardLogger)}, opts...)...)
	t.Cleanup(func() { c.Close() })
	return c, p
}

func openWebSocket(t *testing.T, opts ...Option) (*Conn, *cdptest.Peer) {
	t.Helper()
	s := cdptest.NewServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c, err := Dial(ctx, s.URL(), append([]Option{WithLogger(discardLogger)}, opts...)...)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c, s.Accept()
}

var discardLogger = slog.New(slog.DiscardHandler)

// logBuffer collects log lines for tests that check what an operator reads.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

var _ io.Writer = (*logBuffer)(nil)

// callResult is what an asynchronous call ends with.
type callResult struct {
	raw jsonv2.Value
	err error
}

// goCall runs a call in the background, so the test can play the browser.
func goCall(ctx context.Context, s *Session, method string, params any) <-chan callResult {
	out := make(chan callResult, 1)
	go func() {
		var raw jsonv2.Value
		err := s.Call(ctx, method, params, &raw)
		out <- callResult{raw, err}
	}()
	return out
}

// await waits for an asynchronous call to end.
func await(t *testing.T, ch <-chan callResult) callResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(waitLimit):
		t.Fatal("a call did not return within the wait limit")
		return callResult{}
	}
}

// attach plays the browser's side of Conn.Attach.
func attach(t *testing.T, c *Conn, p *cdptest.Peer, id target.ID, session target.SessionID) *Session {
	t.Helper()
	type attached struct {
		s   *Session
		err error
	}
	out := make(chan attached, 1)
	go func() {
		s, err := c.Attach(context.Background(), id)
		out <- attached{s, err}
	}()
	m := p.Expect("Target.attachToTarget", "")
	var params target.AttachToTargetParams
	if err := jsonv2.Unmarshal(m.Params, &params); err != nil {
		t.Fatalf("the attach params do not decode: %v", err)
	}
	if params.TargetID != id || params.Flatten == nil || !*params.Flatten {
		t.Fatalf("the client sent attach params %s, want targetId %s with flatten true", m.Params, id)
	}
	p.ReplyID(m.ID, fmt.Sprintf(`{"sessionId":%q}`, session))
	var a attached
	select {
	case a = <-out:
	case <-time.After(waitLimit):
		t.Fatal("Attach did not return within the wait limit")
	}
	if a.err != nil {
		t.Fatalf("Attach: %v", a.err)
	}
	if a.s.ID() != session {
		t.Fatalf("Attach returned session %q, want %q", a.s.ID(), session)
	}
	return a.s
}

// proveAlive makes one call on s and answers it, which also proves that the
// read loop has handled every message sent before.
func proveAlive(t *testing.T, p *cdptest.Peer, s *Session) {
	t.Helper()
	ch := goCall(context.Background(), s, "Runtime.runIfWaitingForDebugger", nil)
	p.Reply(p.Expect("Runtime.runIfWaitingForDebugger", s.ID()), `{}`)
	if r := await(t, ch); r.err != nil {
		t.Fatalf("a call after the scenario failed: %v", r.err)
	}
}

func closedWithin(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(waitLimit):
		t.Fatalf("%s did not close within the wait limit", what)
	}
}

func isOpen(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return false
	default:
		return true
	}
}
