package cdp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"go.uber.org/goleak"

	"github.com/glimpse/glimpse/cdp/cdptest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestRepliesReachTheirOwnCallers(t *testing.T) {
	for _, tr := range transports {
		t.Run("replies arriving in reverse order reach their own callers "+tr.name, func(t *testing.T) {
			c, p := tr.open(t)
			const n = 5
			results := make([]<-chan callResult, n)
			for i := range n {
				results[i] = goCall(context.Background(), c.Browser(), "Test.echo", map[string]int{"k": i})
			}
			var got []cdptest.Message
			for range n {
				got = append(got, p.Recv())
			}
			if c.Pending() != n {
				t.Fatalf("Pending() = %d with %d calls in flight", c.Pending(), n)
			}
			for i := len(got) - 1; i >= 0; i-- {
				var params struct {
					K int `json:"k"`
				}
				if err := jsonv2.Unmarshal(got[i].Params, &params); err != nil {
					t.Fatal(err)
				}
				p.ReplyID(got[i].ID, fmt.Sprintf(`{"echo":%d}`, params.K))
			}
			for i, ch := range results {
				r := await(t, ch)
				if r.err != nil {
					t.Fatalf("call %d: %v", i, r.err)
				}
				if want := fmt.Sprintf(`{"echo":%d}`, i); string(r.raw) != want {
					t.Errorf("call %d got %s, want %s", i, r.raw, want)
				}
			}
			if c.Pending() != 0 {
				t.Errorf("Pending() = %d after every reply arrived", c.Pending())
			}
		})
	}
}

func TestManyConcurrentCallsAllComplete(t *testing.T) {
	c, p := openPipe(t)
	const n = 64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			var res struct {
				Echo int `json:"echo"`
			}
			err := c.Browser().Call(context.Background(), "Test.echo", map[string]int{"k": i}, &res)
			if err == nil && res.Echo != i {
				err = fmt.Errorf("call %d got the reply for %d", i, res.Echo)
			}
			errs <- err
		})
	}
	var batch []cdptest.Message
	for range n {
		batch = append(batch, p.Recv())
	}
	// Answer odd ids first, then even ones, so that order never helps.
	for _, odd := range []bool{true, false} {
		for _, m := range batch {
			if (m.ID%2 == 1) == odd {
				var params struct {
					K int `json:"k"`
				}
				if err := jsonv2.Unmarshal(m.Params, &params); err != nil {
					t.Fatal(err)
				}
				p.ReplyID(m.ID, fmt.Sprintf(`{"echo":%d}`, params.K))
			}
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestMalformedMessagesAreSkipped(t *testing.T) {
	cases := []struct {
		name string
		msg  string
	}{
		{"text that is not JSON is skipped", `{not json`},
		{"an empty message is skipped", ``},
		{"a JSON array is skipped", `[1,2,3]`},
		{"a JSON string is skipped", `"hello"`},
		{"an id that is not a number is skipped", `{"id":"seven","result":{}}`},
		{"an object with neither id nor method is skipped", `{"result":{}}`},
		{"a reply to an id nobody waits for is ignored", `{"id":987654,"result":{}}`},
		{"an event for a session that is not attached is ignored", `{"method":"Page.loadEventFired","sessionId":"nobody","params":{}}`},
		{"a detach event whose params are not an object is skipped", `{"method":"Target.detachedFromTarget","params":"S1"}`},
		{"a crash event whose params have the wrong types is skipped", `{"method":"Target.targetCrashed","params":{"targetId":5}}`},
		{"invalid UTF-8 in an event is tolerated", "{\"method\":\"Log.entryAdded\",\"params\":{\"text\":\"\xff\xfe\"}}"},
		{"a message truncated in the middle is skipped", `{"id":1,"result":{"a":`},
	}
	for _, tr := range transports {
		for _, tc := range cases {
			t.Run(tc.name+" "+tr.name, func(t *testing.T) {
				var logs logBuffer
				c, p := tr.open(t, WithLogger(logs.logger()))
				p.Send(tc.msg)
				proveAlive(t, p, c.Browser())
				if !isOpen(c.Done()) {
					t.Fatalf("the connection ended: %v", c.Err())
				}
				if c.Pending() != 0 {
					t.Errorf("Pending() = %d after the scenario", c.Pending())
				}
			})
		}
	}
	t.Run("an operator reads why a message was skipped", func(t *testing.T) {
		var logs logBuffer
		c, p := openPipe(t, WithLogger(logs.logger()))
		p.Send(`{not json`)
		proveAlive(t, p, c.Browser())
		if got := logs.String(); !strings.Contains(got, "not valid JSON") || !strings.Contains(got, "{not json") {
			t.Errorf("the log does not explain the skipped message:\n%s", got)
		}
	})
}

func TestAMalformedReplyFailsItsCallAtOnce(t *testing.T) {
	c, p := openPipe(t)
	ch := goCall(context.Background(), c.Browser(), "Test.odd", nil)
	m := p.Recv()
	p.Send(fmt.Sprintf(`{"id":%d,"result":{},"error":"not an object"}`, m.ID))
	r := await(t, ch)
	if r.err == nil || !strings.Contains(r.err.Error(), "reply to Test.odd is malformed") {
		t.Fatalf("got %v, want an error saying the reply is malformed", r.err)
	}
	if c.Pending() != 0 {
		t.Errorf("Pending() = %d", c.Pending())
	}
	proveAlive(t, p, c.Browser())
}

func TestEndedContextsLeaveNothingPending(t *testing.T) {
	cases := []struct {
		name   string
		ctx    func() (context.Context, context.CancelFunc)
		end    func(cancel context.CancelFunc)
		sends  bool
		wanted error
	}{
		{
			name:   "a call cancelled while waiting returns context.Canceled",
			ctx:    func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			end:    func(cancel context.CancelFunc) { cancel() },
			sends:  true,
			wanted: context.Canceled,
		},
		{
			name: "a call whose deadline passes returns context.DeadlineExceeded",
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 30*time.Millisecond)
			},
			end:    func(context.CancelFunc) {},
			sends:  true,
			wanted: context.DeadlineExceeded,
		},
		{
			name: "a call whose context ended before it started sends nothing",
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, cancel
			},
			end:    func(context.CancelFunc) {},
			wanted: context.Canceled,
		},
	}
	for _, tr := range transports {
		for _, tc := range cases {
			t.Run(tc.name+" "+tr.name, func(t *testing.T) {
				c, p := tr.open(t)
				ctx, cancel := tc.ctx()
				defer cancel()
				ch := goCall(ctx, c.Browser(), "Test.slow", nil)
				var id int64
				if tc.sends {
					id = p.Expect("Test.slow", "").ID
				}
				tc.end(cancel)
				r := await(t, ch)
				if r.err != tc.wanted {
					t.Fatalf("got %v, want exactly %v", r.err, tc.wanted)
				}
				if c.Pending() != 0 {
					t.Fatalf("Pending() = %d after the caller gave up", c.Pending())
				}
				if tc.sends {
					p.ReplyID(id, `{"late":true}`) // must be ignored
				} else {
					p.Quiet()
				}
				proveAlive(t, p, c.Browser())
			})
		}
	}
}

func TestIDsRiseMonotonically(t *testing.T) {
	c, p := openPipe(t)
	var last int64
	for range 5 {
		ch := goCall(context.Background(), c.Browser(), "Test.next", nil)
		m := p.Recv()
		if m.ID <= last {
			t.Fatalf("id %d follows id %d", m.ID, last)
		}
		last = m.ID
		p.ReplyID(m.ID, `{}`)
		await(t, ch)
	}
}

func TestADroppedConnectionFailsEveryPendingCall(t *testing.T) {
	for _, tr := range transports {
		t.Run("every pending call fails with ErrClosed at once "+tr.name, func(t *testing.T) {
			c, p := tr.open(t)
			s := attach(t, c, p, "T1", "S1")
			events, _ := s.Subscribe("Page.loadEventFired")
			var calls []<-chan callResult
			for i := range 3 {
				calls = append(calls, goCall(context.Background(), c.Browser(), fmt.Sprintf("Test.browser%d", i), nil))
				p.Recv()
			}
			calls = append(calls, goCall(context.Background(), s, "Test.session", nil))
			p.Recv()

			start := time.Now()
			p.Drop()
			for i, ch := range calls {
				r := await(t, ch)
				if !errors.Is(r.err, ErrClosed) {
					t.Errorf("call %d: got %v, want an error wrapping ErrClosed", i, r.err)
				}
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("the pending calls took %v to fail", d)
			}
			closedWithin(t, c.Done(), "the connection's Done")
			closedWithin(t, s.Done(), "the session's Done")
			closedWithin(t, c.Browser().Done(), "the browser session's Done")
			if !errors.Is(c.Err(), ErrClosed) || !strings.Contains(c.Err().Error(), "reading from the browser failed") {
				t.Errorf("Err() = %v, want it to wrap ErrClosed and say the read failed", c.Err())
			}
			if c.Pending() != 0 {
				t.Errorf("Pending() = %d after the drop", c.Pending())
			}
			if _, ok := <-events; ok {
				t.Error("the subscription is still open after the drop")
			}
			if err := s.Call(context.Background(), "Test.after", nil, nil); !errors.Is(err, ErrClosed) {
				t.Errorf("a call after the drop returned %v, want ErrClosed", err)
			}
			if _, err := c.Attach(context.Background(), "T2"); !errors.Is(err, ErrClosed) {
				t.Errorf("an attach after the drop returned %v, want ErrClosed", err)
			}
		})
	}
}

func TestAFailedWriteEndsTheConnection(t *testing.T) {
	pipe, _ := cdptest.NewPipe(t)
	pipe.FailWrites()
	c := New(pipe, WithLogger(discardLogger))
	defer c.Close()
	err := c.Browser().Call(context.Background(), "Test.write", nil, nil)
	if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "sending Test.write to the browser failed") {
		t.Fatalf("got %v, want an error wrapping ErrClosed that names the failed send", err)
	}
	closedWithin(t, c.Done(), "the connection's Done")
	if c.Pending() != 0 {
		t.Errorf("Pending() = %d", c.Pending())
	}
}

func TestProtocolErrorsBecomeError(t *testing.T) {
	cases := []struct {
		name    string
		errJSON string
		want    Error
		text    string
	}{
		{
			name:    "an error without data keeps method, code and message",
			errJSON: `{"code":-32601,"message":"'Foo.bar' wasn't found"}`,
			want:    Error{Method: "Foo.bar", Code: -32601, Message: "'Foo.bar' wasn't found"},
			text:    "the browser refused Foo.bar: 'Foo.bar' wasn't found (code -32601)",
		},
		{
			name:    "an error with string data keeps the data",
			errJSON: `{"code":-32602,"message":"Invalid parameters","data":"Failed to deserialize params.url"}`,
			want:    Error{Method: "Foo.bar", Code: -32602, Message: "Invalid parameters", Data: "Failed to deserialize params.url"},
			text:    "the browser refused Foo.bar: Invalid parameters (code -32602): Failed to deserialize params.url",
		},
		{
			name:    "an error with object data keeps it as JSON",
			errJSON: `{"code":-32000,"message":"Odd","data":{"why":1}}`,
			want:    Error{Method: "Foo.bar", Code: -32000, Message: "Odd", Data: `{"why":1}`},
			text:    `the browser refused Foo.bar: Odd (code -32000): {"why":1}`,
		},
	}
	for _, tr := range transports {
		for _, tc := range cases {
			t.Run(tc.name+" "+tr.name, func(t *testing.T) {
				c, p := tr.open(t)
				s := attach(t, c, p, "T1", "S1")
				ch := goCall(context.Background(), s, "Foo.bar", nil)
				m := p.Expect("Foo.bar", "S1")
				p.Send(fmt.Sprintf(`{"id":%d,"sessionId":"S1","error":%s}`, m.ID, tc.errJSON))
				r := await(t, ch)
				var perr *Error
				if !errors.As(r.err, &perr) {
					t.Fatalf("got %v (%T), want *Error", r.err, r.err)
				}
				if *perr != tc.want {
					t.Errorf("got %+v, want %+v", *perr, tc.want)
				}
				if r.err.Error() != tc.text {
					t.Errorf("Error() = %q, want %q", r.err.Error(), tc.text)
				}
				if errors.Is(r.err, ErrClosed) || errors.Is(r.err, ErrSessionClosed) {
					t.Error("a protocol error must not look like a closed connection or session")
				}
				proveAlive(t, p, s)
			})
		}
	}
}

func TestParamsAndResults(t *testing.T) {
	var nilParams *target.CreateTargetParams
	cases := []struct {
		name       string
		params     any
		wantParams string // empty: nothing may be sent
		wantErr    string
	}{
		{name: "nil params are sent as an empty object", params: nil, wantParams: `{}`},
		{name: "a nil pointer is sent as an empty object", params: nilParams, wantParams: `{}`},
		{name: "cdproto's Empty is sent as an empty object", params: cdproto.Empty{}, wantParams: `{}`},
		{name: "optional fields left unset are omitted", params: target.CreateTargetParams{URL: "about:blank"}, wantParams: `{"url":"about:blank"}`},
		{name: "optional booleans set to false are sent", params: page.EnableParams{EnableFileChooserOpenedEvent: new(false)}, wantParams: `{"enableFileChooserOpenedEvent":false}`},
		{name: "raw JSON params pass through unchanged", params: jsonv2.Value(`{"a":[1,2]}`), wantParams: `{"a":[1,2]}`},
		{name: "params that are not an object are refused before sending", params: []int{1}, wantErr: "must encode as a JSON object"},
		{name: "params that cannot be encoded are refused before sending", params: map[string]any{"c": make(chan int)}, wantErr: "encoding the params of Test.params"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, p := openPipe(t)
			ch := goCall(context.Background(), c.Browser(), "Test.params", tc.params)
			if tc.wantErr != "" {
				r := await(t, ch)
				if r.err == nil || !strings.Contains(r.err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error containing %q", r.err, tc.wantErr)
				}
				p.Quiet()
				if c.Pending() != 0 {
					t.Errorf("Pending() = %d", c.Pending())
				}
				return
			}
			m := p.Expect("Test.params", "")
			if string(m.Params) != tc.wantParams {
				t.Errorf("sent params %s, want %s", m.Params, tc.wantParams)
			}
			p.ReplyID(m.ID, `{}`)
			if r := await(t, ch); r.err != nil {
				t.Fatal(r.err)
			}
		})
	}

	t.Run("an empty method name is refused before sending", func(t *testing.T) {
		c, p := openPipe(t)
		if err := c.Browser().Call(context.Background(), "", nil, nil); err == nil || !strings.Contains(err.Error(), "method name is empty") {
			t.Fatalf("got %v", err)
		}
		p.Quiet()
	})
	t.Run("a nil result ignores the reply", func(t *testing.T) {
		c, p := openPipe(t)
		errc := make(chan error, 1)
		go func() { errc <- c.Browser().Call(context.Background(), "Test.any", nil, nil) }()
		p.ReplyID(p.Recv().ID, `{"whatever":[1,2,3]}`)
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a missing result decodes as an empty object", func(t *testing.T) {
		c, p := openPipe(t)
		errc := make(chan error, 1)
		var res target.CreateTargetResult
		go func() { errc <- c.Browser().Call(context.Background(), "Test.any", nil, &res) }()
		p.Send(fmt.Sprintf(`{"id":%d}`, p.Recv().ID))
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a result that does not decode is an error naming the method", func(t *testing.T) {
		c, p := openPipe(t)
		errc := make(chan error, 1)
		var res target.CreateTargetResult
		go func() { errc <- c.Browser().Call(context.Background(), "Target.createTarget", nil, &res) }()
		p.ReplyID(p.Recv().ID, `{"targetId":42}`)
		err := <-errc
		if err == nil || !strings.Contains(err.Error(), "decoding the reply to Target.createTarget") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("Execute sends cdproto's typed params and decodes the typed result", func(t *testing.T) {
		c, p := openPipe(t)
		type out struct {
			res target.CreateTargetResult
			err error
		}
		done := make(chan out, 1)
		go func() {
			res, err := Execute(context.Background(), c.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank", BrowserContextID: "CTX"})
			done <- out{res, err}
		}()
		m := p.Expect("Target.createTarget", "")
		if want := `{"url":"about:blank","browserContextId":"CTX"}`; string(m.Params) != want {
			t.Errorf("sent %s, want %s", m.Params, want)
		}
		p.ReplyID(m.ID, `{"targetId":"T9"}`)
		o := <-done
		if o.err != nil || o.res.TargetID != "T9" {
			t.Fatalf("got %+v, %v", o.res, o.err)
		}
	})
	t.Run("Execute returns the zero result on error", func(t *testing.T) {
		c, p := openPipe(t)
		type out struct {
			res target.CreateTargetResult
			err error
		}
		done := make(chan out, 1)
		go func() {
			res, err := Execute(context.Background(), c.Browser(), target.CreateTarget, target.CreateTargetParams{})
			done <- out{res, err}
		}()
		p.Send(fmt.Sprintf(`{"id":%d,"error":{"code":-32000,"message":"no"}}`, p.Recv().ID))
		o := <-done
		if o.err == nil || o.res.TargetID != "" {
			t.Fatalf("got %+v, %v", o.res, o.err)
		}
	})
}

func TestCloseFailsPendingCallsAndLeaksNothing(t *testing.T) {
	for _, tr := range transports {
		t.Run("Close fails pending calls with ErrClosed and leaves no goroutine "+tr.name, func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			c, p := tr.open(t)
			s := attach(t, c, p, "T1", "S1")
			events, _ := s.Listen()
			ch := goCall(context.Background(), s, "Test.pending", nil)
			p.Recv()

			if err := c.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			r := await(t, ch)
			if !errors.Is(r.err, ErrClosed) {
				t.Errorf("the pending call returned %v, want ErrClosed", r.err)
			}
			if isOpen(c.Done()) || isOpen(s.Done()) {
				t.Error("Done is still open after Close returned")
			}
			if !errors.Is(c.Err(), ErrClosed) || !strings.Contains(c.Err().Error(), "the client closed it") {
				t.Errorf("Err() = %v", c.Err())
			}
			if _, ok := <-events; ok {
				t.Error("a subscription is still open after Close")
			}
			if err := c.Close(); err != nil {
				t.Errorf("a second Close returned %v", err)
			}
			if c.Pending() != 0 {
				t.Errorf("Pending() = %d after Close", c.Pending())
			}
			goleak.VerifyNone(t, before, ignoreServerSide, ignorePipeSide, ignoreTestServer)
		})
	}
}

// The test server and its reader of the socket play the browser, not the
// client under test; the test's cleanup stops them.
var (
	ignoreServerSide = goleak.IgnoreAnyFunction("github.com/glimpse/glimpse/cdp/cdptest.(*Peer).readWebSocket")
	ignorePipeSide   = goleak.IgnoreAnyFunction("github.com/glimpse/glimpse/cdp/cdptest.(*Peer).readPipe")
	ignoreTestServer = goleak.IgnoreAnyFunction("net/http/httptest.(*Server).goServe.func1")
)
