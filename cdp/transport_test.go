package cdp

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

func TestDialFailures(t *testing.T) {
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()

	// A port that was just free: nothing listens on it any more.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := ln.Addr().String()
	ln.Close()

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()

	cases := []struct {
		name string
		ctx  context.Context
		url  string
		want []string
		is   error
	}{
		{"a URL that is not ws or wss is refused", context.Background(), "http://127.0.0.1:1/devtools/browser/x", []string{"connecting to the DevTools endpoint http://127.0.0.1:1/devtools/browser/x", "malformed ws or wss URL"}, nil},
		{"an endpoint that answers plain HTTP names the status", context.Background(), "ws" + strings.TrimPrefix(notFound.URL, "http") + "/devtools/browser/x", []string{"the server answered 404 Not Found instead of a WebSocket upgrade"}, nil},
		{"an endpoint nobody listens on names the address", context.Background(), "ws://" + deadAddr + "/devtools/browser/x", []string{deadAddr, "connection refused"}, nil},
		{"a context that has ended stops the handshake", cancelled, "ws://" + deadAddr + "/devtools/browser/x", []string{"connecting to the DevTools endpoint"}, context.Canceled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Dial(tc.ctx, tc.url, WithLogger(discardLogger))
			if err == nil {
				c.Close()
				t.Fatal("Dial succeeded")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("the error %q does not wrap %v", err, tc.is)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestReadLimit(t *testing.T) {
	t.Run("a message over the read limit ends the connection with an error that names the limit", func(t *testing.T) {
		c, p := openWebSocket(t, WithReadLimit(1024))
		pending := goCall(context.Background(), c.Browser(), "Test.pending", nil)
		p.Recv()
		p.Event("", "Test.huge", `{"blob":"`+strings.Repeat("x", 4096)+`"}`)
		closedWithin(t, c.Done(), "the connection's Done")
		err := c.Err()
		if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "larger than the read limit of 1024 bytes") {
			t.Fatalf("Err() = %v", err)
		}
		if r := await(t, pending); !errors.Is(r.err, ErrClosed) {
			t.Errorf("the pending call returned %v", r.err)
		}
	})
	t.Run("a message under the read limit arrives whole", func(t *testing.T) {
		c, p := openWebSocket(t, WithReadLimit(1<<20))
		ch, _ := c.Browser().Subscribe("Test.big")
		blob := strings.Repeat("y", 512<<10)
		p.Event("", "Test.big", `{"blob":"`+blob+`"}`)
		select {
		case got := <-ch:
			if len(got) != len(blob)+len(`{"blob":""}`) {
				t.Errorf("the event has %d bytes", len(got))
			}
		case <-time.After(waitLimit):
			t.Fatal("the event did not arrive")
		}
	})
}

func TestWriteTimeout(t *testing.T) {
	t.Run("a browser that stops reading ends the connection once a write times out", func(t *testing.T) {
		held := make(chan *websocket.Conn, 1)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
			if err == nil {
				held <- ws // and never read from it
			}
		}))
		defer srv.Close()
		c, err := Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), WithWriteTimeout(50*time.Millisecond), WithLogger(discardLogger))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ws := <-held
		defer ws.Close()

		big := map[string]string{"blob": strings.Repeat("z", 4<<20)}
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		var errs []error
		for i := 0; i < 64 && ctx.Err() == nil; i++ {
			short, cancelShort := context.WithTimeout(ctx, 10*time.Millisecond)
			err := c.Browser().Call(short, "Test.big", big, nil)
			cancelShort()
			if errors.Is(err, ErrClosed) {
				errs = append(errs, err)
				break
			}
		}
		if len(errs) == 0 {
			t.Fatal("no write failed although the browser never reads")
		}
		if !strings.Contains(errs[0].Error(), "sending Test.big to the browser failed") || !strings.Contains(errs[0].Error(), "timeout") {
			t.Errorf("the error %q does not say that the send timed out", errs[0])
		}
		closedWithin(t, c.Done(), "the connection's Done")
	})
}

func TestOptionsKeepDefaultsForNonsense(t *testing.T) {
	cases := []struct {
		name string
		opt  Option
		want options
	}{
		{"a read limit below one keeps the default", WithReadLimit(0), options{eventBuffer: defaultEventBuffer, readLimit: defaultReadLimit, writeTimeout: defaultWriteTimeout}},
		{"a write timeout below one keeps the default", WithWriteTimeout(-time.Second), options{eventBuffer: defaultEventBuffer, readLimit: defaultReadLimit, writeTimeout: defaultWriteTimeout}},
		{"a negative event buffer becomes one", WithEventBuffer(-3), options{eventBuffer: 1, readLimit: defaultReadLimit, writeTimeout: defaultWriteTimeout}},
		{"a nil logger keeps the default", WithLogger(nil), options{eventBuffer: defaultEventBuffer, readLimit: defaultReadLimit, writeTimeout: defaultWriteTimeout}},
		{"a nil option is ignored", nil, options{eventBuffer: defaultEventBuffer, readLimit: defaultReadLimit, writeTimeout: defaultWriteTimeout}},
		{"an empty header adds nothing", WithHeader(http.Header{}), options{eventBuffer: defaultEventBuffer, readLimit: defaultReadLimit, writeTimeout: defaultWriteTimeout}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := buildOptions([]Option{tc.opt})
			if got.logger == nil {
				t.Fatal("the logger is nil")
			}
			got.logger = nil
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestDialSendsTheHeadersItWasGiven(t *testing.T) {
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err == nil {
			defer ws.Close()
			_, _, _ = ws.ReadMessage()
		}
	}))
	defer srv.Close()
	c, err := Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), WithLogger(discardLogger),
		WithHeader(http.Header{"Authorization": {"Bearer secret-token"}}), WithHeader(http.Header{"X-Extra": {"1"}}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h := <-got
	if h.Get("Authorization") != "Bearer secret-token" || h.Get("X-Extra") != "1" {
		t.Errorf("the handshake carried Authorization %q and X-Extra %q, want both options' headers", h.Get("Authorization"), h.Get("X-Extra"))
	}
	if h.Get("Origin") != "" {
		t.Errorf("the handshake carried Origin %q; a DevTools client sends none, which Chromium requires without --remote-allow-origins", h.Get("Origin"))
	}
}
