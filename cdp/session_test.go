package cdp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
)

func TestASlowSubscriberHoldsUpNobodyElse(t *testing.T) {
	for _, tr := range transports {
		t.Run("a full buffer on one session drops its events while the other session flows "+tr.name, func(t *testing.T) {
			const buffer = 4
			c, p := tr.open(t, WithEventBuffer(buffer))
			s1 := attach(t, c, p, "T1", "S1")
			s2 := attach(t, c, p, "T2", "S2")
			slow, _ := s1.Subscribe("Network.requestWillBeSent") // never read
			fast, _ := s2.Subscribe("Network.requestWillBeSent")
			onBrowser, _ := c.Browser().Subscribe("Network.requestWillBeSent")

			for i := range 10 {
				p.Event("S1", "Network.requestWillBeSent", fmt.Sprintf(`{"requestId":"s1-%d"}`, i))
			}
			for i := range 3 {
				p.Event("S2", "Network.requestWillBeSent", fmt.Sprintf(`{"requestId":"s2-%d"}`, i))
			}
			proveAlive(t, p, s2)

			for i := range 3 {
				got := <-fast
				if want := fmt.Sprintf(`{"requestId":"s2-%d"}`, i); string(got) != want {
					t.Errorf("the second session's event %d is %s, want %s", i, got, want)
				}
			}
			if len(slow) != buffer {
				t.Errorf("the slow subscription holds %d events, want a full buffer of %d", len(slow), buffer)
			}
			if got := s1.Dropped(); got != 10-buffer {
				t.Errorf("s1.Dropped() = %d, want %d", got, 10-buffer)
			}
			if got := s2.Dropped(); got != 0 {
				t.Errorf("s2.Dropped() = %d, want 0", got)
			}
			if len(onBrowser) != 0 {
				t.Errorf("the browser session received %d events of other sessions", len(onBrowser))
			}
			// The oldest events are kept, the newest dropped.
			if got := <-slow; string(got) != `{"requestId":"s1-0"}` {
				t.Errorf("the slow subscription's first event is %s", got)
			}
		})
	}
	t.Run("the drops are logged at debug level with the method", func(t *testing.T) {
		var logs logBuffer
		c, p := openPipe(t, WithEventBuffer(1), WithLogger(logs.logger()))
		_, _ = c.Browser().Subscribe("Log.entryAdded")
		p.Event("", "Log.entryAdded", `{}`)
		p.Event("", "Log.entryAdded", `{}`)
		proveAlive(t, p, c.Browser())
		if got := logs.String(); !strings.Contains(got, "level=DEBUG") || !strings.Contains(got, "buffer is full") || !strings.Contains(got, "Log.entryAdded") {
			t.Errorf("the drop is not logged as expected:\n%s", got)
		}
	})
	t.Run("every drop reaches the drop hook with its method", func(t *testing.T) {
		var mu sync.Mutex
		var methods []string
		c, p := openPipe(t, WithEventBuffer(1), WithDropHook(func(m string) { mu.Lock(); methods = append(methods, m); mu.Unlock() }))
		_, _ = c.Browser().Subscribe("Log.entryAdded")
		for range 3 {
			p.Event("", "Log.entryAdded", `{}`)
		}
		proveAlive(t, p, c.Browser())
		mu.Lock()
		defer mu.Unlock()
		if len(methods) != 2 || methods[0] != "Log.entryAdded" {
			t.Errorf("the hook saw %v, want two drops of Log.entryAdded", methods)
		}
	})
	t.Run("an event that must not be lost goes to the overflow when the buffer is full", func(t *testing.T) {
		c, p := openPipe(t, WithEventBuffer(1))
		var mu sync.Mutex
		var overflowed []string
		events, _ := c.Browser().SubscribeOverflow("Fetch.requestPaused", func(v jsonv2.Value) {
			mu.Lock()
			overflowed = append(overflowed, string(v))
			mu.Unlock()
		})
		for i := range 3 {
			p.Event("", "Fetch.requestPaused", fmt.Sprintf(`{"requestId":"r%d"}`, i))
		}
		proveAlive(t, p, c.Browser())
		if got := string(<-events); got != `{"requestId":"r0"}` {
			t.Errorf("the buffered event is %s", got)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(overflowed) != 2 || c.Browser().Dropped() != 0 {
			t.Errorf("overflowed %v with %d dropped; want r1 and r2 overflowed and nothing dropped", overflowed, c.Browser().Dropped())
		}
	})
	t.Run("an event buffer below one still holds one event", func(t *testing.T) {
		c, p := openPipe(t, WithEventBuffer(0))
		ch, _ := c.Browser().Subscribe("Log.entryAdded")
		p.Event("", "Log.entryAdded", `{"n":1}`)
		p.Event("", "Log.entryAdded", `{"n":2}`)
		proveAlive(t, p, c.Browser())
		if len(ch) != 1 || c.Browser().Dropped() != 1 {
			t.Fatalf("buffered %d, dropped %d; want 1 and 1", len(ch), c.Browser().Dropped())
		}
	})
}

func TestEventsThatEndASession(t *testing.T) {
	cases := []struct {
		name    string
		on      string // session the event arrives on: "" for the browser
		method  string
		params  string
		because string
	}{
		{"Target.detachedFromTarget on the browser session ends the session it names", "", "Target.detachedFromTarget", `{"sessionId":"S1","targetId":"T1"}`, "the browser detached session S1"},
		{"Target.targetCrashed on the browser session ends the sessions of its target", "", "Target.targetCrashed", `{"targetId":"T1","status":"crashed","errorCode":139}`, "target T1 crashed (crashed, code 139)"},
		{"Target.targetDestroyed on the browser session ends the sessions of its target", "", "Target.targetDestroyed", `{"targetId":"T1"}`, "target T1 was destroyed"},
		{"Inspector.detached on the session ends it", "S1", "Inspector.detached", `{"reason":"target_closed"}`, "(target_closed)"},
		{"Inspector.targetCrashed on the session ends it", "S1", "Inspector.targetCrashed", `{}`, "the target of session S1 crashed"},
		{"Inspector.targetCrashed without params ends the session", "S1", "Inspector.targetCrashed", `null`, "crashed"},
	}
	for _, tr := range transports {
		for _, tc := range cases {
			t.Run(tc.name+" "+tr.name, func(t *testing.T) {
				c, p := tr.open(t)
				s1 := attach(t, c, p, "T1", "S1")
				s2 := attach(t, c, p, "T2", "S2")
				witness := c.Browser()
				if tc.on != "" {
					witness = s1
				}
				seen, _ := witness.Listen(tc.method)
				typed, _ := s1.Subscribe("Page.loadEventFired")

				call1 := goCall(context.Background(), s1, "Test.s1", nil)
				p.Expect("Test.s1", "S1")
				call2 := goCall(context.Background(), s2, "Test.s2", nil)
				m2 := p.Expect("Test.s2", "S2")

				p.Event(target.SessionID(tc.on), tc.method, tc.params)

				r1 := await(t, call1)
				if !errors.Is(r1.err, ErrSessionClosed) || errors.Is(r1.err, ErrClosed) {
					t.Fatalf("the ended session's call returned %v, want ErrSessionClosed only", r1.err)
				}
				if !strings.Contains(r1.err.Error(), tc.because) || !strings.Contains(r1.err.Error(), "calling Test.s1") {
					t.Errorf("the error %q does not name the call and say %q", r1.err, tc.because)
				}
				closedWithin(t, s1.Done(), "the ended session's Done")

				// The event that ended the session reaches its subscribers
				// before their channels close.
				ev, ok := <-seen
				if !ok || ev.Method != tc.method {
					t.Fatalf("the subscriber saw %+v (open %v), want the %s event", ev, ok, tc.method)
				}
				if tc.on != "" {
					if _, ok := <-seen; ok {
						t.Error("the ended session's Listen channel is still open")
					}
				}
				if _, ok := <-typed; ok {
					t.Error("the ended session's Subscribe channel is still open")
				}

				if err := s1.Call(context.Background(), "Test.again", nil, nil); !errors.Is(err, ErrSessionClosed) {
					t.Errorf("a call on the ended session returned %v", err)
				}
				if ch, _ := s1.Subscribe("Page.loadEventFired"); func() bool { _, ok := <-ch; return ok }() {
					t.Error("subscribing to an ended session returned an open channel")
				}

				// The other session is untouched.
				if !isOpen(s2.Done()) {
					t.Fatal("the other session ended too")
				}
				p.Reply(m2, `{"ok":true}`)
				if r2 := await(t, call2); r2.err != nil || string(r2.raw) != `{"ok":true}` {
					t.Fatalf("the other session's call got %s, %v", r2.raw, r2.err)
				}
				proveAlive(t, p, s2)
				if !isOpen(c.Done()) {
					t.Fatal("the connection ended with the session")
				}
				if c.Pending() != 0 {
					t.Errorf("Pending() = %d", c.Pending())
				}
			})
		}
	}
}

func TestDetach(t *testing.T) {
	t.Run("Detach sends Target.detachFromTarget and ends the session", func(t *testing.T) {
		c, p := openPipe(t)
		s := attach(t, c, p, "T1", "S1")
		errc := make(chan error, 1)
		go func() { errc <- s.Detach(context.Background()) }()
		m := p.Expect("Target.detachFromTarget", "")
		if string(m.Params) != `{"sessionId":"S1"}` {
			t.Errorf("sent %s", m.Params)
		}
		p.ReplyID(m.ID, `{}`)
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		closedWithin(t, s.Done(), "the detached session's Done")
		if err := s.Call(context.Background(), "Test.after", nil, nil); !errors.Is(err, ErrSessionClosed) || !strings.Contains(err.Error(), "detached by the client") {
			t.Errorf("a call after Detach returned %v", err)
		}
		// The browser's own notice that follows changes nothing.
		p.Event("", "Target.detachedFromTarget", `{"sessionId":"S1"}`)
		proveAlive(t, p, c.Browser())
	})
	t.Run("Detach of an ended session does nothing", func(t *testing.T) {
		c, p := openPipe(t)
		s := attach(t, c, p, "T1", "S1")
		p.Event("", "Target.detachedFromTarget", `{"sessionId":"S1"}`)
		closedWithin(t, s.Done(), "the session's Done")
		if err := s.Detach(context.Background()); err != nil {
			t.Fatal(err)
		}
		p.Quiet()
	})
	t.Run("Detach ends the session even when the browser refuses", func(t *testing.T) {
		c, p := openPipe(t)
		s := attach(t, c, p, "T1", "S1")
		errc := make(chan error, 1)
		go func() { errc <- s.Detach(context.Background()) }()
		m := p.Expect("Target.detachFromTarget", "")
		p.Send(fmt.Sprintf(`{"id":%d,"error":{"code":-32602,"message":"No session with given id"}}`, m.ID))
		var perr *Error
		if err := <-errc; !errors.As(err, &perr) {
			t.Fatalf("got %v, want the browser's *Error", err)
		}
		closedWithin(t, s.Done(), "the session's Done")
	})
	t.Run("the browser session refuses Detach", func(t *testing.T) {
		c, p := openPipe(t)
		if err := c.Browser().Detach(context.Background()); err == nil || !strings.Contains(err.Error(), "cannot be detached") {
			t.Fatalf("got %v", err)
		}
		p.Quiet()
		if !isOpen(c.Browser().Done()) {
			t.Fatal("the browser session ended")
		}
	})
}

func TestAttachFailures(t *testing.T) {
	t.Run("a refused attach returns the browser's error and registers nothing", func(t *testing.T) {
		c, p := openPipe(t)
		errc := make(chan error, 1)
		go func() { _, err := c.Attach(context.Background(), "T404"); errc <- err }()
		m := p.Expect("Target.attachToTarget", "")
		p.Send(fmt.Sprintf(`{"id":%d,"error":{"code":-32602,"message":"No target with given id found"}}`, m.ID))
		var perr *Error
		if err := <-errc; !errors.As(err, &perr) || perr.Method != "Target.attachToTarget" {
			t.Fatalf("got %v", err)
		}
		c.mu.Lock()
		n := len(c.sessions)
		c.mu.Unlock()
		if n != 0 {
			t.Error("a session was registered for a refused attach")
		}
	})
	t.Run("an attach reply without a session id is an error", func(t *testing.T) {
		c, p := openPipe(t)
		errc := make(chan error, 1)
		go func() { _, err := c.Attach(context.Background(), "T1"); errc <- err }()
		p.ReplyID(p.Expect("Target.attachToTarget", "").ID, `{}`)
		if err := <-errc; err == nil || !strings.Contains(err.Error(), "without a session id") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("an attach reply whose session id does not decode is an error", func(t *testing.T) {
		c, p := openPipe(t)
		errc := make(chan error, 1)
		go func() { _, err := c.Attach(context.Background(), "T1"); errc <- err }()
		p.ReplyID(p.Expect("Target.attachToTarget", "").ID, `{"sessionId":5}`)
		if err := <-errc; err == nil || !strings.Contains(err.Error(), "decoding the reply to Target.attachToTarget") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("a session id attached again ends the session that held it", func(t *testing.T) {
		c, p := openPipe(t)
		old := attach(t, c, p, "T1", "S1")
		pending := goCall(context.Background(), old, "Test.old", nil)
		p.Expect("Test.old", "S1")
		fresh := attach(t, c, p, "T1", "S1")
		if r := await(t, pending); !errors.Is(r.err, ErrSessionClosed) || !strings.Contains(r.err.Error(), "attached session S1 again") {
			t.Fatalf("the old session's call returned %v", r.err)
		}
		closedWithin(t, old.Done(), "the old session's Done")
		proveAlive(t, p, fresh)
	})
	t.Run("a session registered after the connection closed is born ended", func(t *testing.T) {
		c, _ := openPipe(t)
		c.Close()
		s := c.addSession("S1", "T1")
		closedWithin(t, s.Done(), "the late session's Done")
		if err := s.Call(context.Background(), "Test.late", nil, nil); !errors.Is(err, ErrClosed) {
			t.Fatalf("got %v, want ErrClosed", err)
		}
	})
	t.Run("an empty target id is refused before sending", func(t *testing.T) {
		c, p := openPipe(t)
		if _, err := c.Attach(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "target id is empty") {
			t.Fatalf("got %v", err)
		}
		p.Quiet()
	})
	t.Run("events right after the attach reply reach the new session", func(t *testing.T) {
		c, p := openPipe(t)
		type out struct {
			s   *Session
			err error
		}
		done := make(chan out, 1)
		go func() { s, err := c.Attach(context.Background(), "T1"); done <- out{s, err} }()
		m := p.Expect("Target.attachToTarget", "")
		// The detach follows the reply before Attach's caller can run: the
		// session must already be routed when the read loop reaches it.
		p.ReplyID(m.ID, `{"sessionId":"S1"}`)
		p.Event("", "Target.detachedFromTarget", `{"sessionId":"S1"}`)
		o := <-done
		if o.err != nil {
			t.Fatal(o.err)
		}
		closedWithin(t, o.s.Done(), "the session's Done")
	})
}

func TestSubscriptions(t *testing.T) {
	t.Run("cancel closes the channel and may be called twice", func(t *testing.T) {
		c, p := openPipe(t)
		ch, cancel := c.Browser().Subscribe("Log.entryAdded")
		cancel()
		cancel()
		if _, ok := <-ch; ok {
			t.Fatal("the channel is open after cancel")
		}
		p.Event("", "Log.entryAdded", `{}`)
		proveAlive(t, p, c.Browser())
		if c.Browser().Dropped() != 0 {
			t.Error("a cancelled subscription still counts drops")
		}
	})
	t.Run("Listen without methods gets every event of its session with its name", func(t *testing.T) {
		c, p := openPipe(t)
		all, _ := c.Browser().Listen()
		p.Event("", "A.one", `{"a":1}`)
		p.Event("", "B.two", `{"b":2}`)
		proveAlive(t, p, c.Browser())
		want := []Event{{"A.one", jsonv2.Value(`{"a":1}`)}, {"B.two", jsonv2.Value(`{"b":2}`)}}
		for _, w := range want {
			got := <-all
			if got.Method != w.Method || string(got.Params) != string(w.Params) {
				t.Errorf("got %s %s, want %s %s", got.Method, got.Params, w.Method, w.Params)
			}
		}
	})
	t.Run("Listen with methods gets those methods only", func(t *testing.T) {
		c, p := openPipe(t)
		some, _ := c.Browser().Listen("A.one", "C.three")
		p.Event("", "A.one", `{}`)
		p.Event("", "B.two", `{}`)
		p.Event("", "C.three", `{}`)
		proveAlive(t, p, c.Browser())
		if got := (<-some).Method; got != "A.one" {
			t.Errorf("first event %s", got)
		}
		if got := (<-some).Method; got != "C.three" {
			t.Errorf("second event %s", got)
		}
		if len(some) != 0 {
			t.Errorf("%d more events arrived", len(some))
		}
	})
	t.Run("an event without params arrives as an empty object", func(t *testing.T) {
		c, p := openPipe(t)
		ch, _ := c.Browser().Subscribe("Page.frameResized")
		p.Send(`{"method":"Page.frameResized"}`)
		proveAlive(t, p, c.Browser())
		if got := <-ch; string(got) != `{}` {
			t.Errorf("got %q", got)
		}
	})
	t.Run("cdproto's typed Events iterate over a session", func(t *testing.T) {
		c, p := openPipe(t)
		s := attach(t, c, p, "T1", "S1")
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		events := cdproto.Events(ctx, s, page.LoadEventFired)
		p.Event("S1", "Page.loadEventFired", `{"timestamp":12.5}`)
		for ev, err := range events {
			if err != nil {
				t.Fatal(err)
			}
			if float64(ev.Timestamp) != 12.5 {
				t.Errorf("timestamp %v", ev.Timestamp)
			}
			break
		}
	})
	t.Run("cdproto's typed Events end when the session ends", func(t *testing.T) {
		c, p := openPipe(t)
		s := attach(t, c, p, "T1", "S1")
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		events := cdproto.Events(ctx, s, page.LoadEventFired)
		p.Event("", "Target.detachedFromTarget", `{"sessionId":"S1"}`)
		for _, err := range events {
			t.Fatalf("an event or error arrived after the session ended: %v", err)
		}
		if ctx.Err() != nil {
			t.Fatal("the iterator ended by the deadline, not by the session's end")
		}
	})
}
