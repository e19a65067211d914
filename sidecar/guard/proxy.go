package guard

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultIdleTimeout ends a tunnel or upstream connection on which nothing
// moved in either direction for this long.
const DefaultIdleTimeout = 2 * time.Minute

// Header names the header the proxy sets on the answers it makes itself.
// Its values: "refused" (403, the address rule said no), "unresolvable" (502,
// the name does not resolve), "unreachable" (502, nothing accepted the
// connection), "timeout" (504), "bad-request" (400, not a proxy request),
// "closing" (503, the proxy is shutting down), "unsupported" (500, the
// server cannot hand over the connection for a tunnel), "blocked" (403, the
// host is on the list of a Filter), "unlisted" (200, AnswerAsk's answer
// for a host the list does not name). Each comes with its MarkHeader when
// the proxy has Marks. The sidecar's front sets "unauthorized" (407,
// unmarked) on a proxy request without the sidecar token. The header is taken
// off every answer the proxy forwards, so on this hop it is only ever the
// guard's; inside a CONNECT tunnel the guard never answers, so there it is
// only ever the target's.
const Header = "X-Glimpse-Guard"

// Proxy is an HTTP forward proxy (absolute-form requests) and CONNECT tunnel
// (https, ws, wss) whose every upstream connection is made by its Dialer.
// It never rewrites what passes through: redirects, status codes and bodies
// reach the browser as the target sent them, and bodies stream.
type Proxy struct {
	// IdleTimeout bounds silence on a tunnel or an upstream connection;
	// zero means DefaultIdleTimeout. Set it before the first request.
	IdleTimeout time.Duration
	// Marks, when set, marks every answer the proxy makes itself
	// (MarkHeader), so the orchestrator can tell it from a target's. Set
	// it before the first request.
	Marks *Marks

	dialer  *Dialer
	logger  *slog.Logger
	refused atomic.Int64
	blocked atomic.Int64

	initOnce  sync.Once
	transport *http.Transport
	forward   *httputil.ReverseProxy

	ctx    context.Context // cancelled by Close, ending tunnels and streams
	cancel context.CancelFunc
}

// NewProxy returns a proxy that dials through d. A nil logger discards logs.
// It logs a warning when d's Policy has an allow-list, which is meant for
// development and tests only.
func NewProxy(d *Dialer, logger *slog.Logger) *Proxy {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if d == nil {
		d = &Dialer{}
	}
	if allowed := d.Policy.Allowed(); len(allowed) > 0 {
		logger.Warn("the egress guard lets the browser reach addresses on its allow-list that the address rule would refuse; use this for development and tests only",
			"allow", fmt.Sprint(allowed))
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Proxy{dialer: d, logger: logger, ctx: ctx, cancel: cancel}
}

// Refused returns how many requests the proxy has refused so far.
func (p *Proxy) Refused() int64 { return p.refused.Load() }

// Close ends every open tunnel, upgraded connection and streaming response
// and drops idle upstream connections. Later requests answer 503.
func (p *Proxy) Close() error {
	p.cancel()
	p.init()
	p.transport.CloseIdleConnections()
	return nil
}

// Blocked returns how many requests a Filter of the proxy has refused.
func (p *Proxy) Blocked() int64 { return p.blocked.Load() }

// Filter returns the proxy behind a host list: a request whose host blocks
// reports is answered 403 ("blocked") before anything is dialled, and every
// other request goes to the proxy as it is. Blocking here, where the
// browser's connections already pass, costs the browser nothing; blocking
// inside Chromium costs it CPU on every request of the page.
func (p *Proxy) Filter(blocks func(host string) bool) http.Handler {
	return p.FilterHandler(p, blocks)
}

// FilterHandler is Filter in front of next, which is the proxy or one of
// its Via handlers.
func (p *Proxy) FilterHandler(next http.Handler, blocks func(host string) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.URL.Hostname()
		if r.Method == http.MethodConnect {
			host, _, _ = net.SplitHostPort(r.Host)
		}
		if host != "" && blocks(host) {
			p.blocked.Add(1)
			p.logger.Debug("the egress guard blocked a listed host", "host", host)
			p.answer(w, r, http.StatusForbidden, "blocked", host+" is on the ad-block list; glimpse renders with adblock=false to load it")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// NewServer returns an http.Server for the proxy with bounded header reading
// and keep-alive idleness. The caller sets Addr or calls Serve.
func (p *Proxy) NewServer() *http.Server { return p.ServerFor(p) }

// ServerFor is NewServer serving h, which is the proxy behind something
// such as a Filter.
func (p *Proxy) ServerFor(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       p.idleTimeout(),
		MaxHeaderBytes:    256 << 10,
		ErrorLog:          slog.NewLogLogger(p.logger.Handler(), slog.LevelDebug),
	}
}

func (p *Proxy) idleTimeout() time.Duration {
	if p.IdleTimeout > 0 {
		return p.IdleTimeout
	}
	return DefaultIdleTimeout
}

func (p *Proxy) init() {
	p.initOnce.Do(func() {
		idle := p.idleTimeout()
		p.transport = &http.Transport{
			Proxy: nil, // never a proxy of its own: the checked address is the only destination
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				conn, err := p.dialer.DialContext(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return newIdleConn(conn, idle, new(activity)), nil
			},
			MaxIdleConns:          64,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       min(90*time.Second, idle),
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: idle,
			ExpectContinueTimeout: time.Second,
			// The browser negotiates encodings itself; decompressing here
			// would change the bytes it receives.
			DisableCompression: true,
		}
		p.forward = &httputil.ReverseProxy{
			Rewrite: func(pr *httputil.ProxyRequest) {
				pr.Out.URL.Scheme = upstreamScheme(pr.In.URL.Scheme)
				pr.Out.URL.User = nil
				pr.Out.Header.Del(NonceHeader)
			},
			Transport:     p.transport,
			FlushInterval: -1,
			// The guard's word is the guard's: a target that sends the
			// header itself must not make glimpse read a refusal, a
			// time-out or a failure into a page that answered.
			ModifyResponse: func(res *http.Response) error {
				res.Header.Del(Header)
				res.Header.Del(MarkHeader)
				return nil
			},
			ErrorLog: slog.NewLogLogger(p.logger.Handler(), slog.LevelDebug),
			ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
				p.fail(w, r, r.URL.Hostname(), err)
			},
		}
	})
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.init()
	if p.ctx.Err() != nil {
		p.answer(w, r, http.StatusServiceUnavailable, "closing", "the glimpse egress proxy is shutting down")
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(p.ctx, cancel)()
	r = r.WithContext(ctx)

	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Host == "" {
		p.answer(w, r, http.StatusBadRequest, "bad-request",
			"this is the glimpse egress proxy: send absolute-form requests (GET http://host/path) or CONNECT host:port")
		return
	}
	switch r.URL.Scheme {
	case "http", "https", "ws", "wss":
	default:
		p.refuse(w, r, r.URL.Hostname(), fmt.Sprintf("glimpse only fetches http, https, ws and wss URLs; %s: is refused", r.URL.Scheme))
		return
	}
	p.forward.ServeHTTP(w, r)
}

func upstreamScheme(s string) string {
	switch s {
	case "ws":
		return "http"
	case "wss":
		return "https"
	}
	return s
}

// tunnel answers CONNECT: it dials the checked address first, so a refusal
// is still an ordinary HTTP answer, then splices the two connections.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		p.answer(w, r, http.StatusBadRequest, "bad-request", "CONNECT needs host:port, as in CONNECT example.com:443")
		return
	}
	upstream, err := p.dialer.DialContext(r.Context(), "tcp", r.Host)
	if err != nil {
		p.fail(w, r, host, err)
		return
	}
	p.join(w, r, upstream, nil, "host", r.Host, "upstream", upstream.RemoteAddr().String())
}

// join takes over the client's connection behind an accepted CONNECT,
// says the tunnel is established and splices it with upstream until
// either side ends or the proxy stops. fromUpstream holds what upstream
// already sent past its own CONNECT exchange (nil when it had none);
// logArgs name the tunnel in the log.
func (p *Proxy) join(w http.ResponseWriter, r *http.Request, upstream net.Conn, fromUpstream *bufio.Reader, logArgs ...any) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		upstream.Close()
		p.answer(w, r, http.StatusInternalServerError, "unsupported", "this connection cannot carry a CONNECT tunnel")
		return
	}
	client, brw, err := hj.Hijack()
	if err != nil {
		upstream.Close()
		p.logger.Warn("the egress proxy could not take over a CONNECT connection", append([]any{"error", err}, logArgs...)...)
		return
	}

	act := new(activity)
	c := newIdleConn(client, p.idleTimeout(), act)
	u := newIdleConn(upstream, p.idleTimeout(), act)
	stop := context.AfterFunc(p.ctx, func() { c.Close(); u.Close() })
	defer stop()
	defer c.Close()
	defer u.Close()

	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	// What either side sent right behind the CONNECT exchange is already
	// buffered.
	if fromUpstream != nil {
		if n := fromUpstream.Buffered(); n > 0 {
			early, _ := fromUpstream.Peek(n)
			if _, err := c.Write(early); err != nil {
				return
			}
		}
	}
	if n := brw.Reader.Buffered(); n > 0 {
		early, _ := brw.Reader.Peek(n)
		if _, err := u.Write(early); err != nil {
			return
		}
	}
	p.logger.Debug("the egress proxy opened a tunnel", logArgs...)

	done := make(chan struct{})
	go func() {
		defer close(done)
		splice(u, c)
	}()
	splice(c, u)
	<-done
}

// splice copies src to dst. At a clean end of src it half-closes dst so the
// other side sees the end and may still answer; on an error it closes both,
// which also ends the opposite direction.
func splice(dst, src *idleConn) {
	_, err := io.Copy(dst, src)
	if err == nil && dst.CloseWrite() == nil {
		return
	}
	dst.Close()
	src.Close()
}

// fail turns a dial or transport error into the proxy's own answer.
func (p *Proxy) fail(w http.ResponseWriter, r *http.Request, host string, err error) {
	var refused *RefusedError
	var lookup *LookupError
	switch {
	case errors.As(err, &refused):
		p.refuse(w, r, host, refused.Error())
	case errors.As(err, &lookup):
		p.logger.Info("the egress proxy could not resolve a host the browser asked for", "host", host, "error", lookup.Err)
		p.answer(w, r, http.StatusBadGateway, "unresolvable", lookup.Error())
	case p.ctx.Err() != nil:
		p.answer(w, r, http.StatusServiceUnavailable, "closing", "the glimpse egress proxy is shutting down")
	case r.Context().Err() != nil:
		// The browser gave up on this request; nobody reads an answer.
		p.logger.Debug("the browser cancelled a request before it was answered", "host", host)
	case isTimeout(err):
		p.answer(w, r, http.StatusGatewayTimeout, "timeout", fmt.Sprintf("%s did not answer in time: %v", host, err))
	default:
		p.logger.Debug("the egress proxy could not reach a host", "host", host, "error", err)
		p.answer(w, r, http.StatusBadGateway, "unreachable", fmt.Sprintf("glimpse could not connect to %s: %v", host, err))
	}
}

func (p *Proxy) refuse(w http.ResponseWriter, r *http.Request, host, reason string) {
	p.refused.Add(1)
	p.logger.Info("the egress guard refused a connection the browser asked for", "host", host, "reason", reason)
	p.answer(w, r, http.StatusForbidden, "refused", reason)
}

// answer is the proxy's own answer to r, marked as the guard's when the
// proxy has Marks.
func (p *Proxy) answer(w http.ResponseWriter, r *http.Request, status int, kind, msg string) {
	if p.Marks != nil {
		w.Header().Set(MarkHeader, p.Marks.Mark(kind, requestHost(r), nonceOf(r)))
	}
	answer(w, status, kind, msg)
}

func answer(w http.ResponseWriter, status int, kind, msg string) {
	h := w.Header()
	h.Set(Header, kind)
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	io.WriteString(w, strings.TrimSpace(msg)+"\n")
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// ChromeFlags returns the Chromium flags that send every connection the
// browser makes through the proxy at addr ("127.0.0.1:8118"). Loopback is
// not exempt ("<-loopback>" removes Chromium's implicit bypass), and WebRTC
// may not send UDP around the proxy. Name resolution is left to the proxy on
// purpose: no --host-resolver-rules, so the browser never holds an address
// the guard did not check.
func ChromeFlags(addr string) []string {
	return []string{
		"--proxy-server=http://" + addr,
		"--proxy-bypass-list=<-loopback>",
		"--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
		"--webrtc-ip-handling-policy=disable_non_proxied_udp",
		"--disable-quic",
	}
}
