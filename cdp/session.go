package cdp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
)

// Session is the browser session or one flattened target session of a Conn.
// It implements cdproto's cdp.Session, so cdproto.Call and cdproto.Events
// work on it. Its methods are safe for concurrent use.
type Session struct {
	conn     *Conn
	id       target.SessionID
	targetID target.ID
	done     chan struct{}
	dropped  atomic.Int64

	// Guarded by conn.mu, so that registering a call and ending the session
	// cannot interleave.
	ended  bool
	endErr error

	mu         sync.Mutex // guards subs and subsClosed
	subs       map[*subscription]struct{}
	subsClosed bool
}

var _ cdproto.Session = (*Session)(nil)

// Event is one event of a session, as Listen delivers it.
type Event struct {
	Method string
	Params jsonv2.Value
}

// subscription is one Subscribe or Listen channel; exactly one of values and
// events is set. Sends and closes happen under Session.mu only, so a send
// can never hit a closed channel.
type subscription struct {
	methods  map[string]struct{} // nil: every event of the session
	values   chan jsonv2.Value
	events   chan Event
	overflow func(jsonv2.Value) // called with what the full buffer could not take; nil: dropped
}

func newSession(c *Conn, id target.SessionID, targetID target.ID) *Session {
	return &Session{
		conn:     c,
		id:       id,
		targetID: targetID,
		done:     make(chan struct{}),
		subs:     make(map[*subscription]struct{}),
	}
}

// ID is the flattened session id, empty for the browser session.
func (s *Session) ID() target.SessionID { return s.id }

// TargetID is the target the session is attached to: the page of a
// flattened session or of a connection made WithPageTarget; empty for the
// browser.
func (s *Session) TargetID() target.ID { return s.targetID }

// Err says why the session ended; nil while it is open. A session ended
// with its connection carries the connection's error, so a page that sent
// a message over the read limit shows ErrMessageTooLarge here.
func (s *Session) Err() error {
	s.conn.mu.Lock()
	defer s.conn.mu.Unlock()
	if !s.ended {
		return nil
	}
	return s.endErr
}

// Done is closed when the session ends: detached, its target crashed or
// destroyed, or the connection closed.
func (s *Session) Done() <-chan struct{} { return s.done }

// Dropped counts the events dropped because a subscriber's buffer was full.
func (s *Session) Dropped() int64 { return s.dropped.Load() }

// Call implements cdproto's cdp.Session. It sends method with params (nil
// becomes {}) on this session and waits for the reply or for ctx. The reply's
// result is decoded into result unless result is nil.
//
// It returns ctx.Err() when ctx ends first, a *Error when the browser refuses
// the command, an error wrapping ErrClosed when the connection is gone, and
// one wrapping ErrSessionClosed when only this session is.
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	r, err := s.roundTrip(ctx, method, params, "")
	if err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	if err := jsonv2.Unmarshal(orEmpty(r.result), result, lenient); err != nil {
		return fmt.Errorf("decoding the reply to %s: %w", method, err)
	}
	return nil
}

// request is the message a call sends.
type request struct {
	ID        int64            `json:"id"`
	SessionID target.SessionID `json:"sessionId,omitzero"`
	Method    string           `json:"method"`
	Params    jsonv2.Value     `json:"params"`
}

func (s *Session) roundTrip(ctx context.Context, method string, params any, attach target.ID) (reply, error) {
	c := s.conn
	if method == "" {
		return reply{}, errors.New("calling the browser: the method name is empty")
	}
	if err := ctx.Err(); err != nil {
		return reply{}, err
	}
	raw, err := marshalParams(method, params)
	if err != nil {
		return reply{}, err
	}
	// The id is registered before the message leaves, so even an instant
	// reply finds its caller.
	pc := &pendingCall{method: method, session: s, reply: make(chan reply, 1), attach: attach}
	id, err := c.register(pc)
	if err != nil {
		return reply{}, fmt.Errorf("calling %s: %w", method, err)
	}
	data, err := jsonv2.Marshal(request{ID: id, SessionID: s.id, Method: method, Params: raw})
	if err != nil {
		c.take(id)
		return reply{}, fmt.Errorf("encoding the message for %s: %w", method, err)
	}
	if err := c.write(data); err != nil {
		// A failed write leaves the socket in an unknown state, so the whole
		// connection ends; that sweep also answers this call.
		werr := fmt.Errorf("%w: sending %s to the browser failed: %w", ErrClosed, method, err)
		if c.shutdown(werr) {
			c.log.Warn("The DevTools connection failed while sending a command; pending calls fail and sessions end.", "method", method, "err", err)
		}
		c.closeTransport()
	}

	var r reply
	select {
	case r = <-pc.reply:
	case <-ctx.Done():
		if _, ok := c.take(id); ok {
			return reply{}, ctx.Err()
		}
		// The reply won the race and is already in the slot; taking it keeps
		// a freshly attached session from being orphaned.
		r = <-pc.reply
	}
	if r.err != nil {
		if _, ok := r.err.(*Error); ok {
			return reply{}, r.err
		}
		return reply{}, fmt.Errorf("calling %s: %w", method, r.err)
	}
	return r, nil
}

// marshalParams encodes params with cdproto's JSON layer, so that its
// omitzero tags hold. The protocol wants an object, even an empty one.
func marshalParams(method string, params any) (jsonv2.Value, error) {
	if params == nil {
		return emptyObject, nil
	}
	raw, err := jsonv2.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encoding the params of %s: %w", method, err)
	}
	raw = bytes.TrimSpace(raw)
	switch {
	case bytes.Equal(raw, []byte("null")):
		return emptyObject, nil
	case len(raw) == 0 || raw[0] != '{':
		return nil, fmt.Errorf("encoding the params of %s: they must encode as a JSON object, not %s", method, excerpt(raw))
	}
	return raw, nil
}

// Subscribe implements cdproto's cdp.Session: a buffered channel of the
// params of method's events on this session only. When the buffer is full
// the event is dropped and counted, so a slow reader never holds up the read
// loop or anyone's replies. The channel closes on cancel, when the session
// ends or when the connection ends; cancel may be called more than once.
func (s *Session) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	sub := &subscription{
		methods: map[string]struct{}{method: {}},
		values:  make(chan jsonv2.Value, s.conn.evBuf),
	}
	return sub.values, s.add(sub)
}

// SubscribeOverflow is Subscribe for events that must not be lost, such as
// Fetch.requestPaused, whose request waits until it is answered: what the
// full buffer cannot take is handed to overflow instead, on the read loop,
// which it must not block.
func (s *Session) SubscribeOverflow(method string, overflow func(jsonv2.Value)) (<-chan jsonv2.Value, func()) {
	sub := &subscription{
		methods:  map[string]struct{}{method: {}},
		values:   make(chan jsonv2.Value, s.conn.evBuf),
		overflow: overflow,
	}
	return sub.values, s.add(sub)
}

// Listen is Subscribe for several methods at once, or for every event of the
// session when no method is given, and keeps each event's method name.
func (s *Session) Listen(methods ...string) (<-chan Event, func()) {
	sub := &subscription{events: make(chan Event, s.conn.evBuf)}
	if len(methods) > 0 {
		sub.methods = make(map[string]struct{}, len(methods))
		for _, m := range methods {
			sub.methods[m] = struct{}{}
		}
	}
	return sub.events, s.add(sub)
}

func (s *Session) add(sub *subscription) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subsClosed {
		// The session has already ended: hand back a closed channel so a
		// range over it ends at once.
		sub.close()
		return func() {}
	}
	s.subs[sub] = struct{}{}
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, ok := s.subs[sub]; ok {
			delete(s.subs, sub)
			sub.close()
		}
	}
}

func (sub *subscription) close() {
	if sub.values != nil {
		close(sub.values)
	} else {
		close(sub.events)
	}
}

// deliver hands an event to every matching subscription without blocking.
func (s *Session) deliver(method string, params jsonv2.Value) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for sub := range s.subs {
		if sub.methods != nil {
			if _, ok := sub.methods[method]; !ok {
				continue
			}
		}
		var sent bool
		if sub.values != nil {
			select {
			case sub.values <- params:
				sent = true
			default:
			}
		} else {
			select {
			case sub.events <- Event{Method: method, Params: params}:
				sent = true
			default:
			}
		}
		switch {
		case sent:
		case sub.overflow != nil:
			sub.overflow(params)
		default:
			n := s.dropped.Add(1)
			s.conn.log.Debug("Dropped a DevTools event because its subscriber's buffer is full.", "method", method, "session", s.id, "dropped", n)
			if s.conn.onDrop != nil {
				s.conn.onDrop(method)
			}
		}
	}
}

func (s *Session) closeSubscriptions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subsClosed = true
	for sub := range s.subs {
		sub.close()
	}
	clear(s.subs)
}

// Detach runs Target.detachFromTarget for this session and ends it here,
// whatever the browser answers, since the caller is done with it. Detaching
// a session that has already ended does nothing.
func (s *Session) Detach(ctx context.Context) error {
	c := s.conn
	if s == c.browser {
		return errors.New("detaching: the browser session cannot be detached; close the connection instead")
	}
	select {
	case <-s.done:
		return nil
	default:
	}
	err := c.browser.Call(ctx, target.CommandDetachFromTarget, target.DetachFromTargetParams{SessionID: s.id}, nil)
	c.endSession(s, fmt.Errorf("%w: session %s was detached by the client", ErrSessionClosed, s.id))
	return err
}

// Execute is the typed helper over Call:
//
//	res, err := cdp.Execute(ctx, sess, page.Navigate, page.NavigateParams{URL: u})
func Execute[P, R any](ctx context.Context, s *Session, c cdproto.Command[P, R], params P) (R, error) {
	var res R
	if err := s.Call(ctx, c.Method, params, &res); err != nil {
		var zero R
		return zero, err
	}
	return res, nil
}
