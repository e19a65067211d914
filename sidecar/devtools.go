package sidecar

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/gorilla/websocket"
)

const (
	// clientReadLimit caps one message from a client. Each is held whole to
	// be read by the filter; what glimpse sends is far smaller (its largest
	// are scripts of at most 64 KiB), so this only stops a runaway client.
	clientReadLimit = 16 << 20
	// answerWait bounds writing the answer to a refused command, so a client
	// that stops reading cannot hold its own command loop forever.
	answerWait = 10 * time.Second
	// pingEvery and pongWait notice a client that vanished without closing
	// its TCP connection, so the upstream connection does not stay open.
	pingEvery = 30 * time.Second
	pongWait  = 75 * time.Second
	// controlWait bounds writing a close or ping frame.
	controlWait = 2 * time.Second
)

var upgrader = websocket.Upgrader{
	HandshakeTimeout:  10 * time.Second,
	ReadBufferSize:    64 << 10,
	WriteBufferSize:   64 << 10,
	EnableCompression: false,
	// CheckOrigin stays at gorilla's default: programs (which send no Origin)
	// are welcome, web pages from another origin are not.
}

// upstreamDialer reaches Chromium on loopback; Proxy is nil on purpose, as
// an HTTP(S)_PROXY in the environment must not capture it.
var upstreamDialer = websocket.Dialer{
	HandshakeTimeout:  10 * time.Second,
	ReadBufferSize:    64 << 10,
	WriteBufferSize:   64 << 10,
	EnableCompression: false,
}

// serveDevTools upgrades the request and connects it to the current
// Chromium's browser endpoint until either side goes away or the generation
// is retired: every command the client sends passes the filter, and
// everything Chromium sends is piped back as it is.
func (s *Sidecar) serveDevTools(w http.ResponseWriter, r *http.Request) {
	s.proxyDevTools(w, r, "")
}

// proxyDevTools serves serveDevTools, or, with a page's target id, the
// connection to that page's own endpoint (see serveDevToolsPage).
func (s *Sidecar) proxyDevTools(w http.ResponseWriter, r *http.Request, page string) {
	if !websocket.IsWebSocketUpgrade(r) {
		http.Error(w, "This is a DevTools WebSocket endpoint; connect with a WebSocket client.", http.StatusBadRequest)
		return
	}
	g, status := s.current()
	if page != "" {
		g, status = s.pageGeneration(r.Context(), target.ID(page))
	}
	if g == nil {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "Chromium is "+status+" on this sidecar; connect again when /healthz reports ok.", http.StatusServiceUnavailable)
		return
	}
	// A client that names the generation it read from /healthz must get
	// exactly that browser: it tells its connections apart by generation
	// and would otherwise mistake a newer browser for the one it replaces.
	if want := r.URL.Query().Get("generation"); page == "" && want != "" && want != strconv.Itoa(g.n) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("Chromium generation %s no longer takes connections on this sidecar; generation %d does. Read /healthz and connect again.", want, g.n), http.StatusConflict)
		return
	}
	upstreamURL := g.wsURL
	if page != "" {
		var err error
		if upstreamURL, err = pageEndpoint(g.wsURL, page); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	upstream, resp, err := upstreamDialer.DialContext(r.Context(), upstreamURL, nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		// Chromium answers a page it does not have with 500 ("No such
		// target id") rather than 404.
		if page != "" && resp != nil && (resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusInternalServerError) {
			http.Error(w, "Chromium has no page "+page+"; create the page on /devtools/browser first, and connect while it is open.", http.StatusNotFound)
			return
		}
		s.logger.Warn("Could not reach Chromium's DevTools endpoint for a client.", "generation", g.n, "err", err)
		w.Header().Set("Retry-After", "1")
		http.Error(w, "Chromium's DevTools endpoint did not answer; connect again when /healthz reports ok.", http.StatusServiceUnavailable)
		return
	}
	client, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		// The upgrader already answered the client.
		upstream.Close()
		return
	}
	pc := newProxyConn(client, upstream, s.filter, s.logger.With("generation", g.n, "client", r.RemoteAddr))
	if page == "" {
		pc.admission = s.admission
	} else {
		pc.page = page
	}
	// The browser disposes of the contexts of a connection that ends.
	defer func() { s.admission.release(&pc.pages, pc.pages) }()
	if !g.addClient(pc) {
		pc.closeBoth(errShutdown)
		return
	}
	defer g.removeClient(pc)
	pc.run()
}

// proxyConn is one client WebSocket paired with its own WebSocket to Chromium.
type proxyConn struct {
	client, upstream *websocket.Conn
	filter           *cdpFilter
	logger           *slog.Logger
	// admission counts this client's pages against the sidecar's limit;
	// pages is how many it holds, guarded by admission's lock.
	admission *admission
	pages     int
	// page is the target id of a connection to one page's own endpoint,
	// which carries no browser-level command; empty for the browser's.
	page string
	// clientMu serialises the two writers of client messages: Chromium's
	// messages piped back, and the answers to refused commands.
	clientMu sync.Mutex

	once sync.Once
	done chan struct{} // closed by shutdown
}

func newProxyConn(client, upstream *websocket.Conn, filter *cdpFilter, logger *slog.Logger) *proxyConn {
	return &proxyConn{client: client, upstream: upstream, filter: filter, logger: logger, done: make(chan struct{})}
}

// errShutdown is the cause when the sidecar, not a peer, ends the connection.
var errShutdown = errors.New("Chromium is restarting")

// pipeEnd says which pipe stopped and why.
type pipeEnd struct {
	fromClient bool // the client-to-Chromium pipe
	err        error
}

// run pipes until one side ends or shutdown is called, then closes both
// sockets and returns once both pipes have stopped.
func (pc *proxyConn) run() {
	pc.client.SetReadLimit(clientReadLimit)
	extend := func() { _ = pc.client.SetReadDeadline(time.Now().Add(pongWait)) }
	extend()
	pc.client.SetPongHandler(func(string) error { extend(); return nil })

	ends := make(chan pipeEnd, 2)
	go func() { ends <- pipeEnd{fromClient: true, err: pc.forwardCommands(extend)} }()
	go func() { ends <- pipeEnd{err: pipe(pc.client, pc.upstream, &pc.clientMu)} }()

	ping := time.NewTicker(pingEvery)
	defer ping.Stop()
	pending := 2
	var cause error
	clientClosed := false
	for cause == nil {
		select {
		case e := <-ends:
			pending--
			cause = e.err
			clientClosed = e.fromClient && isCloseFrame(e.err)
		case <-pc.done:
			cause = errShutdown
		case <-ping.C:
			if err := pc.client.WriteControl(websocket.PingMessage, nil, time.Now().Add(controlWait)); err != nil {
				cause = fmt.Errorf("pinging the client: %w", err)
			}
		}
	}
	if clientClosed {
		// gorilla already answered the client's close frame.
		pc.closeUpstream()
	} else {
		pc.closeBoth(cause)
	}
	for ; pending > 0; pending-- {
		<-ends
	}
	if !errors.Is(cause, errShutdown) && !clientClosed && !isNormalEnd(cause) {
		pc.logger.Debug("A proxied DevTools connection ended.", "err", cause)
	}
}

// closeBoth tells the client why it is being disconnected, then closes both
// sockets.
func (pc *proxyConn) closeBoth(cause error) {
	code, text := websocket.CloseGoingAway, "Chromium closed the connection; reconnect"
	if errors.Is(cause, errShutdown) {
		code, text = websocket.CloseServiceRestart, "Chromium is restarting; reconnect"
	}
	_ = pc.client.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(controlWait))
	pc.client.Close()
	pc.closeUpstream()
}

func (pc *proxyConn) closeUpstream() {
	_ = pc.upstream.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(controlWait))
	pc.upstream.Close()
	pc.client.Close()
}

// shutdown makes run close the connection, telling the client that Chromium
// is restarting. It does not wait.
func (pc *proxyConn) shutdown() {
	pc.once.Do(func() { close(pc.done) })
}

func isCloseFrame(err error) bool {
	var ce *websocket.CloseError
	return errors.As(err, &ce)
}

func isNormalEnd(err error) bool {
	return websocket.IsCloseError(err, websocket.CloseNormalClosure, websocket.CloseGoingAway, websocket.CloseNoStatusReceived) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// forwardCommands reads the client's messages one by one and sends those the
// filter passes to Chromium; the others are answered with a DevTools error.
// onMessage runs as each message arrives.
func (pc *proxyConn) forwardCommands(onMessage func()) error {
	for {
		kind, msg, err := pc.client.ReadMessage()
		if err != nil {
			return err
		}
		onMessage()
		var answer []byte
		var r *refusal
		method := ""
		if kind == websocket.TextMessage {
			answer, r, method = pc.filter.check(msg)
		} else {
			answer, r = pc.filter.refuseBinary()
		}
		if r == nil && pc.page != "" {
			if r = pc.filter.browserLevel(method); r != nil {
				answer = errorAnswer(commandID(msg), "", r)
			}
		}
		if r == nil && pc.admission != nil {
			switch method {
			case "Target.createBrowserContext":
				if !pc.admission.admit(&pc.pages) {
					r = pc.admission.fullRefusal()
					answer = errorAnswer(commandID(msg), "", r)
				}
			case "Target.disposeBrowserContext":
				pc.admission.release(&pc.pages, 1)
			}
		}
		if r == nil {
			msg = pc.filter.routed(method, msg)
			if err := pc.upstream.WriteMessage(websocket.TextMessage, msg); err != nil {
				return err
			}
			continue
		}
		if r.reason == "full" {
			// Busy, not hostile: the pool tries another sidecar.
			pc.logger.Debug("The sidecar is full and refused a page.", "why", r.message)
			if err := pc.answer(answer); err != nil {
				return err
			}
			continue
		}
		pc.logger.Warn("The sidecar refused a DevTools command instead of passing it to Chromium.",
			"method", clip(method), "reason", r.reason, "why", r.message)
		if err := pc.answer(answer); err != nil {
			return err
		}
	}
}

// answer writes the sidecar's own reply to the client.
func (pc *proxyConn) answer(msg []byte) error {
	pc.clientMu.Lock()
	defer pc.clientMu.Unlock()
	if err := pc.client.SetWriteDeadline(time.Now().Add(answerWait)); err != nil {
		return err
	}
	if err := pc.client.WriteMessage(websocket.TextMessage, msg); err != nil {
		return err
	}
	return pc.client.SetWriteDeadline(time.Time{})
}

// pipe copies whole messages from src to dst, frame by frame, so a message
// of tens of megabytes passes without being held in memory. mu is held while
// a message is written to dst.
func pipe(dst, src *websocket.Conn, mu *sync.Mutex) error {
	for {
		kind, r, err := src.NextReader()
		if err != nil {
			return err
		}
		if err := copyMessage(dst, kind, r, mu); err != nil {
			return err
		}
	}
}

func copyMessage(dst *websocket.Conn, kind int, r io.Reader, mu *sync.Mutex) error {
	mu.Lock()
	defer mu.Unlock()
	w, err := dst.NextWriter(kind)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
