package cdptest

import (
	"sync"
	"time"

	"github.com/chromedp/cdproto/target"
)

// Handler answers one command. It runs on the peer's reader, one command
// at a time in the order they arrived, so it must not block: a handler that
// answers later does so from a goroutine of its own (see After).
type Handler func(c *Call)

// Script maps command methods to the handlers that answer them. Its
// methods are safe for concurrent use, so a test may change the script
// while the client runs.
type Script struct {
	mu       sync.Mutex
	handlers map[string]Handler
	others   Handler
}

// NewScript returns an empty script: every command waits for Recv.
func NewScript() *Script { return &Script{handlers: map[string]Handler{}} }

// Handle makes h answer method; a nil h leaves method to Recv again.
func (s *Script) Handle(method string, h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h == nil {
		delete(s.handlers, method)
		return
	}
	s.handlers[method] = h
}

// HandleOthers makes h answer every command without a handler of its own,
// such as NotFound to behave like a browser that lacks the method; nil
// leaves them to Recv.
func (s *Script) HandleOthers(h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.others = h
}

func (s *Script) handler(method string) Handler {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h, ok := s.handlers[method]; ok {
		return h
	}
	return s.others
}

// Call is one command being answered by a handler. Its methods return the
// error of a connection that has gone, and are safe from any goroutine.
type Call struct {
	Message
	peer *Peer
}

// Peer is the connection the command came on.
func (c *Call) Peer() *Peer { return c.peer }

// Reply answers the command with result (see Result for how it encodes).
func (c *Call) Reply(result any) error {
	return c.peer.write([]byte(replyText(c.ID, c.SessionID, result)))
}

// Fail answers the command with a protocol error.
func (c *Call) Fail(code int64, message string) error {
	return c.peer.write([]byte(errorText(c.ID, c.SessionID, code, message)))
}

// Event sends an event on the command's own session.
func (c *Call) Event(method string, params any) error {
	return c.peer.write([]byte(eventText(c.SessionID, method, params)))
}

// EventOn sends an event on another session; the empty one is the
// browser's.
func (c *Call) EventOn(session target.SessionID, method string, params any) error {
	return c.peer.write([]byte(eventText(session, method, params)))
}

// Send writes raw text to the client as one message.
func (c *Call) Send(raw string) error { return c.peer.write([]byte(raw)) }

// Crash reports the crash of target id, whose page is session (see
// Peer.Crash).
func (c *Call) Crash(id target.ID, session target.SessionID) error { return crash(c.peer, id, session) }

// Drop ends the connection without a goodbye.
func (c *Call) Drop() { c.peer.Drop() }

// Result answers with v. A string, []byte or json.RawMessage is sent as
// the JSON it holds; nil is {}; anything else is encoded with
// encoding/json.
func Result(v any) Handler { return func(c *Call) { _ = c.Reply(v) } }

// Error answers with a protocol error, as a browser refusing the command.
func Error(code int64, message string) Handler {
	return func(c *Call) { _ = c.Fail(code, message) }
}

// NotFound answers as Chromium does a method it does not have.
func NotFound(c *Call) { _ = c.Fail(-32601, "'"+c.Method+"' wasn't found") }

// Silent never answers: the command hangs until the client gives up.
func Silent(*Call) {}

// Drop ends the connection when the command arrives, as a browser that
// dies while it works.
func Drop(c *Call) { c.Drop() }

// Raw answers with text sent as it is, such as a malformed message.
func Raw(text string) Handler { return func(c *Call) { _ = c.Send(text) } }

// After runs h d later, on a goroutine of its own: a reply that is slow
// to come. The connection's end does not stop the timer; h's writes then
// fail quietly.
func After(d time.Duration, h Handler) Handler {
	return func(c *Call) {
		time.AfterFunc(d, func() { h(c) })
	}
}

// Sequence answers the first command with the first handler, the second
// with the second, and every later one with the last.
func Sequence(hs ...Handler) Handler {
	var mu sync.Mutex
	n := 0
	return func(c *Call) {
		mu.Lock()
		h := hs[min(n, len(hs)-1)]
		n++
		mu.Unlock()
		h(c)
	}
}
