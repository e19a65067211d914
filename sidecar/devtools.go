package sidecar

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

const (
	// clientReadLimit caps one message from a client. Messages are streamed,
	// not held, so this only stops a runaway client from feeding Chromium
	// without end.
	clientReadLimit = 256 << 20
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

// serveDevTools upgrades the request and pipes every message both ways to the
// current Chromium's browser endpoint until either side goes away or the
// generation is retired.
func (s *Sidecar) serveDevTools(w http.ResponseWriter, r *http.Request) {
	if !websocket.IsWebSocketUpgrade(r) {
		http.Error(w, "This is a DevTools WebSocket endpoint; connect with a WebSocket client.", http.StatusBadRequest)
		return
	}
	g, status := s.current()
	if g == nil {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "Chromium is "+status+" on this sidecar; connect again when /healthz reports ok.", http.StatusServiceUnavailable)
		return
	}
	upstream, resp, err := upstreamDialer.DialContext(r.Context(), g.wsURL, nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
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
	pc := newProxyConn(client, upstream, s.logger.With("generation", g.n, "client", r.RemoteAddr))
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
	logger           *slog.Logger

	once sync.Once
	done chan struct{} // closed by shutdown
}

func newProxyConn(client, upstream *websocket.Conn, logger *slog.Logger) *proxyConn {
	return &proxyConn{client: client, upstream: upstream, logger: logger, done: make(chan struct{})}
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
	go func() { ends <- pipeEnd{fromClient: true, err: pipe(pc.upstream, pc.client, extend)} }()
	go func() { ends <- pipeEnd{err: pipe(pc.client, pc.upstream, nil)} }()

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

// pipe copies whole messages from src to dst, frame by frame, so a message
// of tens of megabytes passes without being held in memory. onMessage runs
// as each message starts.
func pipe(dst, src *websocket.Conn, onMessage func()) error {
	for {
		kind, r, err := src.NextReader()
		if err != nil {
			return err
		}
		if onMessage != nil {
			onMessage()
		}
		w, err := dst.NextWriter(kind)
		if err != nil {
			return err
		}
		if _, err := io.Copy(w, r); err != nil {
			w.Close()
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
	}
}
