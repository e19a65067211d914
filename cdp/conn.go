package cdp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
)

// Conn is one DevTools connection to a browser. Its methods are safe for
// concurrent use.
type Conn struct {
	t       Transport
	log     *slog.Logger
	evBuf   int
	onDrop  func(method string) // nil: drops are only logged and counted
	browser *Session
	page    bool          // a connection to one page: its root session is the page
	done    chan struct{} // closed when the read loop has ended

	writeMu sync.Mutex // one writer at a time, as Transport asks

	closeOnce sync.Once
	closeErr  error

	mu       sync.Mutex // guards everything below and every Session's ended/endErr
	nextID   int64
	pending  map[int64]*pendingCall
	sessions map[target.SessionID]*Session // flattened sessions, not the browser's
	closed   bool
	err      error
}

// pendingCall is a call awaiting its reply. Exactly one party removes it
// from Conn.pending under Conn.mu, and only that party sends on reply, so the
// one-slot channel never blocks the sender.
type pendingCall struct {
	method  string
	session *Session
	reply   chan reply
	// attach is the target of a Target.attachToTarget sent by Attach. The
	// read loop registers the new session before it reads the next message,
	// so no event for the session can slip past before it is routed.
	attach target.ID
}

type reply struct {
	result  jsonv2.Value
	err     error
	session *Session // set for a successful attach
}

// New wraps any Transport and starts the single read goroutine.
func New(t Transport, opts ...Option) *Conn {
	return newConn(t, buildOptions(opts))
}

func newConn(t Transport, o options) *Conn {
	c := &Conn{
		t:        t,
		log:      o.logger,
		evBuf:    o.eventBuffer,
		onDrop:   o.onDrop,
		done:     make(chan struct{}),
		pending:  make(map[int64]*pendingCall),
		sessions: make(map[target.SessionID]*Session),
	}
	c.browser = newSession(c, "", o.page)
	c.page = o.page != ""
	go c.readLoop()
	return c
}

// Browser returns the root session, the one with an empty sessionId: the
// browser's, or the page's on a connection made WithPageTarget.
func (c *Conn) Browser() *Session { return c.browser }

// Attach runs Target.attachToTarget{targetId, flatten:true} and returns the
// flattened session, routed by sessionId. Should ctx end before the reply,
// the browser may still attach; that session then lives until its target or
// browser context goes away, which the callers' teardown sees to anyway.
func (c *Conn) Attach(ctx context.Context, id target.ID) (*Session, error) {
	if id == "" {
		return nil, errors.New("attaching to a target: the target id is empty")
	}
	flatten := true
	params := target.AttachToTargetParams{TargetID: id, Flatten: &flatten}
	r, err := c.browser.roundTrip(ctx, target.CommandAttachToTarget, params, id)
	if err != nil {
		return nil, err
	}
	return r.session, nil
}

// Close ends the connection: every pending call fails with an error wrapping
// ErrClosed, every session ends, and Close returns once the read loop has
// stopped. Calling it again returns nil.
func (c *Conn) Close() error {
	c.shutdown(fmt.Errorf("%w: the client closed it", ErrClosed))
	err := c.closeTransport()
	<-c.done
	return err
}

// Done is closed when the read loop ends.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err says why the connection ended; it wraps ErrClosed. It is nil while the
// connection is open.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Pending counts the calls awaiting a reply.
func (c *Conn) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

func (c *Conn) closeTransport() error {
	c.closeOnce.Do(func() { c.closeErr = c.t.Close() })
	return c.closeErr
}

// register adds a pending call for s and returns its id. It refuses when the
// connection or the session has ended, under the same lock that ending
// takes, so no call can be registered after its failure sweep ran.
func (c *Conn) register(pc *pendingCall) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, c.err
	}
	if pc.session.ended {
		return 0, pc.session.endErr
	}
	c.nextID++
	c.pending[c.nextID] = pc
	return c.nextID, nil
}

// take removes the pending call id and reports whether it was still there.
func (c *Conn) take(id int64) (*pendingCall, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pc, ok := c.pending[id]
	if ok {
		delete(c.pending, id)
	}
	return pc, ok
}

func (c *Conn) write(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return c.t.WriteMessage(data)
}

// shutdown fails every pending call and ends every session with err. Only
// the first call has an effect; it reports whether it was the first.
func (c *Conn) shutdown(err error) bool {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return false
	}
	c.closed = true
	c.err = err
	pending := c.pending
	c.pending = make(map[int64]*pendingCall)
	sessions := make([]*Session, 0, len(c.sessions)+1)
	sessions = append(sessions, c.browser)
	for _, s := range c.sessions {
		sessions = append(sessions, s)
	}
	c.mu.Unlock()

	for _, pc := range pending {
		pc.reply <- reply{err: err}
	}
	for _, s := range sessions {
		c.endSession(s, err)
	}
	return true
}

// endSession closes s: its pending calls fail with err, Done closes and its
// subscriptions close. Ending an ended session does nothing.
func (c *Conn) endSession(s *Session, err error) {
	c.mu.Lock()
	if s.ended {
		c.mu.Unlock()
		return
	}
	s.ended = true
	s.endErr = err
	if c.sessions[s.id] == s {
		delete(c.sessions, s.id)
	}
	var failed []*pendingCall
	for id, pc := range c.pending {
		if pc.session == s {
			delete(c.pending, id)
			failed = append(failed, pc)
		}
	}
	c.mu.Unlock()

	for _, pc := range failed {
		pc.reply <- reply{err: err}
	}
	close(s.done)
	s.closeSubscriptions()
}

// addSession registers the flattened session id for targetID. Should the
// connection already be gone, the session is born ended, so that its users
// see ErrClosed rather than a session that never answers.
func (c *Conn) addSession(id target.SessionID, targetID target.ID) *Session {
	s := newSession(c, id, targetID)
	c.mu.Lock()
	closed, err := c.closed, c.err
	old := c.sessions[id]
	if !closed {
		c.sessions[id] = s
	}
	c.mu.Unlock()
	if old != nil {
		// The browser never reuses a session id, so one still routed here
		// missed its end; end it now rather than orphan its calls.
		c.endSession(old, fmt.Errorf("%w: the browser attached session %s again", ErrSessionClosed, id))
	}
	if closed {
		c.endSession(s, err)
	}
	return s
}

func (c *Conn) lookup(id target.SessionID) *Session {
	if id == "" {
		return c.browser
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessions[id]
}

// sessionsOf lists the live sessions attached to a target.
func (c *Conn) sessionsOf(id target.ID) []*Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*Session
	for _, s := range c.sessions {
		if s.targetID == id {
			out = append(out, s)
		}
	}
	return out
}
