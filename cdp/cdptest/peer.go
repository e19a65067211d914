package cdptest

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
)

// WaitLimit bounds every wait of a Peer's test-side methods. Nothing in a
// scripted exchange takes more than a few milliseconds, so reaching it
// means the client hangs.
const WaitLimit = 5 * time.Second

// Message is a command the client sent, as the browser reads it.
type Message struct {
	ID        int64            `json:"id"`
	SessionID target.SessionID `json:"sessionId,omitempty"`
	Method    string           `json:"method"`
	Params    json.RawMessage  `json:"params"`
}

// Decode unmarshals the command's params into v.
func (m Message) Decode(v any) error {
	if len(m.Params) == 0 {
		return json.Unmarshal([]byte("{}"), v)
	}
	return json.Unmarshal(m.Params, v)
}

// Peer is the browser's end of one DevTools connection. Commands the script
// answers never reach Recv; the others wait there for the test, unless the
// script answers every command (Script.HandleOthers).
//
// Methods that take no error result (Recv, Expect, Send, Reply, Event, ...)
// belong to the test's goroutine: they fail the test with t.Fatal. Script
// handlers run on the peer's reader and use Call's methods, which return
// errors instead.
type Peer struct {
	tb     testing.TB
	script *Script
	in     chan Message  // commands no handler took, for Recv
	closed chan struct{} // the connection has ended, on either side

	writeFn  func([]byte) error
	dropFn   func()
	dropOnce sync.Once

	mu       sync.Mutex
	received []Message
}

func newPeer(tb testing.TB, s *Script, write func([]byte) error, drop func()) *Peer {
	return &Peer{
		tb:      tb,
		script:  s,
		in:      make(chan Message, 1024),
		closed:  make(chan struct{}),
		writeFn: write,
		dropFn:  drop,
	}
}

// Script is what answers this peer's commands: its own, or the Server's
// that it shares with every connection of that server.
func (p *Peer) Script() *Script { return p.script }

// Handle is p.Script().Handle.
func (p *Peer) Handle(method string, h Handler) { p.script.Handle(method, h) }

// dispatch takes one message from the client.
func (p *Peer) dispatch(data []byte) {
	var m Message
	if err := json.Unmarshal(data, &m); err != nil {
		p.tb.Errorf("cdptest: the client sent a message that does not decode: %v: %.200s", err, data)
		return
	}
	p.mu.Lock()
	p.received = append(p.received, m)
	p.mu.Unlock()
	if h := p.script.handler(m.Method); h != nil {
		h(&Call{Message: m, peer: p})
		return
	}
	select {
	case p.in <- m:
	default:
		p.tb.Errorf("cdptest: %d commands wait unanswered for Recv; dropped %s", cap(p.in), m.Method)
	}
}

// Received lists every command the client sent on this connection, in
// order, whether a handler answered it or not.
func (p *Peer) Received() []Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Message(nil), p.received...)
}

// Sent lists the commands of one method the client sent, in order.
func (p *Peer) Sent(method string) []Message {
	var out []Message
	for _, m := range p.Received() {
		if m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// Closed is closed once the connection has ended, whichever side ended it.
func (p *Peer) Closed() <-chan struct{} { return p.closed }

func (p *Peer) markClosed() {
	select {
	case <-p.closed:
	default:
		close(p.closed)
	}
}

// Recv returns the next command no handler answered.
func (p *Peer) Recv() Message {
	p.tb.Helper()
	select {
	case m := <-p.in:
		return m
	case <-time.After(WaitLimit):
		p.tb.Fatal("cdptest: the client sent nothing within the wait limit")
		return Message{}
	}
}

// Expect receives the next unanswered command and checks its method and
// session.
func (p *Peer) Expect(method string, session target.SessionID) Message {
	p.tb.Helper()
	m := p.Recv()
	if m.Method != method || m.SessionID != session {
		p.tb.Fatalf("cdptest: the client sent %s on session %q, want %s on session %q", m.Method, m.SessionID, method, session)
	}
	return m
}

// Quiet checks that the client sends nothing unanswered for a short while.
func (p *Peer) Quiet() {
	p.tb.Helper()
	select {
	case m := <-p.in:
		p.tb.Fatalf("cdptest: the client sent %s on session %q, want nothing", m.Method, m.SessionID)
	case <-time.After(50 * time.Millisecond):
	}
}

// Send writes raw text to the client as one message, malformed or not.
func (p *Peer) Send(raw string) {
	p.tb.Helper()
	if err := p.write([]byte(raw)); err != nil {
		p.tb.Fatalf("cdptest: the browser could not send %.200s: %v", raw, err)
	}
}

// ReplyID answers the call id on the browser session.
func (p *Peer) ReplyID(id int64, result any) {
	p.tb.Helper()
	p.Send(replyText(id, "", result))
}

// Reply answers m on its own session.
func (p *Peer) Reply(m Message, result any) {
	p.tb.Helper()
	p.Send(replyText(m.ID, m.SessionID, result))
}

// Fail answers m with a protocol error.
func (p *Peer) Fail(m Message, code int64, message string) {
	p.tb.Helper()
	p.Send(errorText(m.ID, m.SessionID, code, message))
}

// Event sends an event on a session; the empty session is the browser's.
func (p *Peer) Event(session target.SessionID, method string, params any) {
	p.tb.Helper()
	p.Send(eventText(session, method, params))
}

// Crash plays a page's renderer dying, as Chromium reports it: the page's
// session hears Inspector.targetCrashed, the browser session
// Target.targetCrashed.
func (p *Peer) Crash(id target.ID, session target.SessionID) {
	p.tb.Helper()
	if err := crash(p, id, session); err != nil {
		p.tb.Fatalf("cdptest: the browser could not report the crash: %v", err)
	}
}

func crash(p *Peer, id target.ID, session target.SessionID) error {
	if err := p.write([]byte(eventText(session, "Inspector.targetCrashed", nil))); err != nil {
		return err
	}
	return p.write([]byte(eventText("", "Target.targetCrashed",
		map[string]any{"targetId": id, "status": "crashed", "errorCode": 139})))
}

// Drop ends the browser's side of the connection without a goodbye, as a
// browser that is killed does. It is safe to call more than once and from
// any goroutine.
func (p *Peer) Drop() { p.dropOnce.Do(p.dropFn) }

func (p *Peer) write(data []byte) error { return p.writeFn(data) }

// text is v as JSON: strings, []byte and json.RawMessage are taken as JSON
// already, nil is {}.
func text(v any) string {
	switch v := v.(type) {
	case nil:
		return "{}"
	case string:
		return v
	case []byte:
		return string(v)
	case json.RawMessage:
		return string(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("cdptest: %T does not encode as JSON: %v", v, err))
	}
	return string(b)
}

func replyText(id int64, session target.SessionID, result any) string {
	if session != "" {
		return fmt.Sprintf(`{"id":%d,"sessionId":%q,"result":%s}`, id, session, text(result))
	}
	return fmt.Sprintf(`{"id":%d,"result":%s}`, id, text(result))
}

func errorText(id int64, session target.SessionID, code int64, message string) string {
	e, _ := json.Marshal(map[string]any{"code": code, "message": message})
	if session != "" {
		return fmt.Sprintf(`{"id":%d,"sessionId":%q,"error":%s}`, id, session, e)
	}
	return fmt.Sprintf(`{"id":%d,"error":%s}`, id, e)
}

func eventText(session target.SessionID, method string, params any) string {
	if session == "" {
		return fmt.Sprintf(`{"method":%q,"params":%s}`, method, text(params))
	}
	return fmt.Sprintf(`{"method":%q,"sessionId":%q,"params":%s}`, method, session, text(params))
}
