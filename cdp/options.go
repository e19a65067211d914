package cdp

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/chromedp/cdproto/target"
)

const (
	defaultEventBuffer  = 256
	defaultReadLimit    = 256 << 20
	defaultWriteTimeout = 10 * time.Second
)

// Option changes how a Conn behaves.
type Option func(*options)

type options struct {
	eventBuffer  int
	logger       *slog.Logger
	readLimit    int64
	writeTimeout time.Duration
	header       http.Header
	onDrop       func(method string)
	page         target.ID
}

func buildOptions(opts []Option) options {
	o := options{
		eventBuffer:  defaultEventBuffer,
		logger:       slog.Default(),
		readLimit:    defaultReadLimit,
		writeTimeout: defaultWriteTimeout,
	}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// WithEventBuffer sets how many events each subscription holds before new
// ones are dropped; the default is 256. Values below 1 become 1, because an
// unbuffered channel would drop every event its reader is not already
// waiting for.
func WithEventBuffer(n int) Option {
	return func(o *options) { o.eventBuffer = max(n, 1) }
}

// WithDropHook is called, on the read loop, for every event dropped
// because its subscriber's buffer was full, so that drops can be counted
// where they matter; it must not block.
func WithDropHook(f func(method string)) Option {
	return func(o *options) { o.onDrop = f }
}

// WithLogger sets where the connection reports malformed messages, dropped
// events and lost connections; the default is slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.logger = l
		}
	}
}

// WithReadLimit caps the size of one message read by Dial's WebSocket; the
// default is 256 MiB, since a DOM transfer can be tens of megabytes. A
// message over the limit ends the connection. Values below 1 keep the
// default. New ignores it: the Transport owns its limits.
func WithReadLimit(n int64) Option {
	return func(o *options) {
		if n > 0 {
			o.readLimit = n
		}
	}
}

// WithWriteTimeout bounds one write on Dial's WebSocket; the default is 10
// seconds. A browser that stops reading would otherwise block every caller
// behind the write lock. A write that times out ends the connection. Values
// below 1 keep the default. New ignores it.
func WithWriteTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.writeTimeout = d
		}
	}
}

// WithHeader adds h to the WebSocket handshake of Dial, such as the
// Authorization a glimpse sidecar asks for. Later calls add to earlier ones.
// New ignores it.
func WithHeader(h http.Header) Option {
	return func(o *options) {
		if len(h) == 0 {
			return
		}
		if o.header == nil {
			o.header = http.Header{}
		}
		for k, vs := range h {
			for _, v := range vs {
				o.header.Add(k, v)
			}
		}
	}
}

// WithPageTarget says the connection goes to one page's own endpoint
// (/devtools/page/<id>) rather than to the browser: its root session,
// Browser, then stands for that page, names it in TargetID, and ends the
// connection when the page crashes or is detached, as a flattened
// session would end.
func WithPageTarget(id target.ID) Option {
	return func(o *options) { o.page = id }
}
