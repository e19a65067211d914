package cdp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/gorilla/websocket"
)

// waitLimit bounds every wait in the protocol tests; nothing here should
// take more than a few milliseconds, so hitting it means a hang.
const waitLimit = 5 * time.Second

// peer is the browser's end of a connection under test: the test reads what
// the client sent and writes what a browser would answer.
type peer struct {
	t      *testing.T
	in     <-chan []byte
	sendFn func([]byte) error
	dropFn func()
	once   sync.Once
}

// sent is a message the client sent, as the browser sees it.
type sent struct {
	ID        int64            `json:"id"`
	SessionID target.SessionID `json:"sessionId,omitzero"`
	Method    string           `json:"method"`
	Params    jsonv2.Value     `json:"params"`
}

// recv returns the next message the client sent.
func (p *peer) recv() sent {
	p.t.Helper()
	select {
	case data, ok := <-p.in:
		if !ok {
			p.t.Fatal("the client's connection ended while the browser waited for a message")
		}
		var m sent
		if err := jsonv2.Unmarshal(data, &m); err != nil {
			p.t.Fatalf("the client sent a message that does not decode: %v: %s", err, data)
		}
		return m
	case <-time.After(waitLimit):
		p.t.Fatal("the client sent nothing within the wait limit")
		return sent{}
	}
}

// expectMethod receives the next message and checks its method and session.
func (p *peer) expectMethod(method string, session target.SessionID) sent {
	p.t.Helper()
	m := p.recv()
	if m.Method != method || m.SessionID != session {
		p.t.Fatalf("the client sent %s on session %q, want %s on session %q", m.Method, m.SessionID, method, session)
	}
	return m
}

// quiet checks that the client sends nothing for a short while.
func (p *peer) quiet() {
	p.t.Helper()
	select {
	case data, ok := <-p.in:
		if ok {
			p.t.Fatalf("the client sent %s, want nothing", data)
		}
	case <-time.After(50 * time.Millisecond):
	}
}

func (p *peer) send(msg string) {
	p.t.Helper()
	if err := p.sendFn([]byte(msg)); err != nil {
		p.t.Fatalf("the browser could not send %s: %v", msg, err)
	}
}

func (p *peer) reply(id int64, result string) {
	p.t.Helper()
	p.send(fmt.Sprintf(`{"id":%d,"result":%s}`, id, result))
}

func (p *peer) replyTo(m sent, result string) {
	p.t.Helper()
	if m.SessionID != "" {
		p.send(fmt.Sprintf(`{"id":%d,"sessionId":%q,"result":%s}`, m.ID, m.SessionID, result))
		return
	}
	p.reply(m.ID, result)
}

func (p *peer) event(session target.SessionID, method, params string) {
	p.t.Helper()
	if session == "" {
		p.send(fmt.Sprintf(`{"method":%q,"params":%s}`, method, params))
		return
	}
	p.send(fmt.Sprintf(`{"method":%q,"sessionId":%q,"params":%s}`, method, session, params))
}

// drop ends the browser's side of the connection without a goodbye.
func (p *peer) drop() { p.once.Do(p.dropFn) }

// opener starts a Conn and its browser peer over one kind of transport.
type opener struct {
	name string
	open func(t *testing.T, opts ...Option) (*Conn, *peer)
}

// transports runs each protocol scenario over the Transport seam and over a
// real WebSocket from Dial.
var transports = []opener{
	{"over an in-memory transport", openPipe},
	{"over a WebSocket from Dial", openWebSocket},
}

// pipeTransport is an in-memory Transport: the peer's writes are the
// client's reads and the other way round.
type pipeTransport struct {
	toClient   chan []byte
	toPeer     chan []byte
	closed     chan struct{}
	once       sync.Once
	failWrites bool
}

var errPipeClosed = errors.New("the in-memory transport is closed")

func newPipe() *pipeTransport {
	return &pipeTransport{
		toClient: make(chan []byte, 1024),
		toPeer:   make(chan []byte, 1024),
		closed:   make(chan struct{}),
	}
}

func (p *pipeTransport) ReadMessage() ([]byte, error) {
	select {
	case d := <-p.toClient:
		return d, nil
	case <-p.closed:
		return nil, errPipeClosed
	}
}

func (p *pipeTransport) WriteMessage(data []byte) error {
	if p.failWrites {
		return errors.New("the in-memory transport refuses writes")
	}
	select {
	case p.toPeer <- bytes.Clone(data):
		return nil
	case <-p.closed:
		return errPipeClosed
	}
}

func (p *pipeTransport) Close() error {
	p.once.Do(func() { close(p.closed) })
	return nil
}

func (p *pipeTransport) peer(t *testing.T) *peer {
	return &peer{
		t:  t,
		in: p.toPeer,
		sendFn: func(b []byte) error {
			select {
			case p.toClient <- b:
				return nil
			case <-p.closed:
				return errPipeClosed
			}
		},
		dropFn: func() { p.Close() },
	}
}

func openPipe(t *testing.T, opts ...Option) (*Conn, *peer) {
	t.Helper()
	pipe := newPipe()
	c := New(pipe, append([]Option{WithLogger(discardLogger)}, opts...)...)
	t.Cleanup(func() { c.Close() })
	return c, pipe.peer(t)
}

// wsServer is an httptest server that upgrades to WebSocket and hands the
// browser's side of each connection to the test.
type wsServer struct {
	srv   *httptest.Server
	conns chan *websocket.Conn
}

func newWSServer(t *testing.T) *wsServer {
	t.Helper()
	s := &wsServer{conns: make(chan *websocket.Conn, 1)}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		up := websocket.Upgrader{}
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return // the upgrader has answered the client already
		}
		s.conns <- ws
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *wsServer) url() string {
	return "ws" + strings.TrimPrefix(s.srv.URL, "http") + "/devtools/browser/test"
}

// peer wraps the server side of the next accepted connection; close it to
// stop its reader.
func (s *wsServer) peer(t *testing.T) (*peer, func()) {
	t.Helper()
	var ws *websocket.Conn
	select {
	case ws = <-s.conns:
	case <-time.After(waitLimit):
		t.Fatal("the test server accepted no WebSocket within the wait limit")
	}
	in := make(chan []byte, 1024)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer close(in)
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			in <- data
		}
	}()
	var writeMu sync.Mutex
	closeFn := func() {
		ws.Close()
		<-readerDone
	}
	p := &peer{
		t:  t,
		in: in,
		sendFn: func(b []byte) error {
			writeMu.Lock()
			defer writeMu.Unlock()
			return ws.WriteMessage(websocket.TextMessage, b)
		},
		dropFn: func() { ws.NetConn().Close() },
	}
	return p, closeFn
}

func openWebSocket(t *testing.T, opts ...Option) (*Conn, *peer) {
	t.Helper()
	s := newWSServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c, err := Dial(ctx, s.url(), append([]Option{WithLogger(discardLogger)}, opts...)...)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	p, closePeer := s.peer(t)
	t.Cleanup(func() {
		c.Close()
		closePeer()
	})
	return c, p
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
func attach(t *testing.T, c *Conn, p *peer, id target.ID, session target.SessionID) *Session {
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
	m := p.expectMethod("Target.attachToTarget", "")
	var params target.AttachToTargetParams
	if err := jsonv2.Unmarshal(m.Params, &params); err != nil {
		t.Fatalf("the attach params do not decode: %v", err)
	}
	if params.TargetID != id || params.Flatten == nil || !*params.Flatten {
		t.Fatalf("the client sent attach params %s, want targetId %s with flatten true", m.Params, id)
	}
	p.reply(m.ID, fmt.Sprintf(`{"sessionId":%q}`, session))
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
func proveAlive(t *testing.T, p *peer, s *Session) {
	t.Helper()
	ch := goCall(context.Background(), s, "Runtime.runIfWaitingForDebugger", nil)
	p.replyTo(p.expectMethod("Runtime.runIfWaitingForDebugger", s.ID()), `{}`)
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
