package cdptest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// Server is a scripted browser's DevTools endpoint: a WebSocket server on
// a loopback port. Every connection gets a Peer that answers by the
// server's one Script. The test's cleanup closes the server and every
// connection.
type Server struct {
	tb     testing.TB
	srv    *httptest.Server
	script *Script
	peers  chan *Peer
	mux    *http.ServeMux // plain HTTP beside the DevTools endpoint

	mu     sync.Mutex
	all    []*Peer
	conns  []*websocket.Conn
	closed bool
	wg     sync.WaitGroup // the readers of the connections
}

// NewServer starts a scripted browser on 127.0.0.1. Its script is empty:
// script it with Handle before the client sends, or answer by hand.
func NewServer(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{tb: tb, script: NewScript(), peers: make(chan *Peer, 64), mux: http.NewServeMux()}
	s.srv = httptest.NewServer(http.HandlerFunc(s.upgrade))
	tb.Cleanup(s.Close)
	return s
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return strings.TrimPrefix(s.srv.URL, "http://") }

// HandleHTTP serves plain HTTP requests (not WebSocket upgrades) for
// pattern beside the DevTools endpoint, such as the health endpoint of a
// browser's supervisor.
func (s *Server) HandleHTTP(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// URL is the browser-level DevTools address to dial.
func (s *Server) URL() string {
	return "ws" + strings.TrimPrefix(s.srv.URL, "http") + "/devtools/browser/cdptest"
}

// Script answers the commands of every connection.
func (s *Server) Script() *Script { return s.script }

// Handle is s.Script().Handle.
func (s *Server) Handle(method string, h Handler) { s.script.Handle(method, h) }

// HandleOthers is s.Script().HandleOthers.
func (s *Server) HandleOthers(h Handler) { s.script.HandleOthers(h) }

// Accept returns the peer of the next connection, in the order they were
// made.
func (s *Server) Accept() *Peer {
	s.tb.Helper()
	select {
	case p := <-s.peers:
		return p
	case <-time.After(WaitLimit):
		s.tb.Fatal("cdptest: no client connected within the wait limit")
		return nil
	}
}

// Peers lists the peers of every connection made so far.
func (s *Server) Peers() []*Peer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Peer(nil), s.all...)
}

func (s *Server) upgrade(w http.ResponseWriter, r *http.Request) {
	if !websocket.IsWebSocketUpgrade(r) {
		s.mux.ServeHTTP(w, r)
		return
	}
	ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered the client already
	}
	var writeMu sync.Mutex
	p := newPeer(s.tb, s.script,
		func(b []byte) error {
			writeMu.Lock()
			defer writeMu.Unlock()
			_ = ws.SetWriteDeadline(time.Now().Add(WaitLimit))
			return ws.WriteMessage(websocket.TextMessage, b)
		},
		// Closing the socket under the protocol is what a killed browser
		// looks like: no close frame.
		func() { ws.NetConn().Close() },
	)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ws.Close()
		return
	}
	s.all = append(s.all, p)
	s.conns = append(s.conns, ws)
	s.wg.Add(1)
	s.mu.Unlock()
	select {
	case s.peers <- p:
	default: // nobody calls Accept: the peer is still in Peers
	}
	go p.readWebSocket(ws, &s.wg)
}

// readWebSocket hands the client's messages to the peer until the
// connection ends.
func (p *Peer) readWebSocket(ws *websocket.Conn, wg *sync.WaitGroup) {
	defer wg.Done()
	defer p.markClosed()
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			return
		}
		p.dispatch(data)
	}
}

// Close ends every connection, waits for their readers and stops the
// server. It is safe to call more than once.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	conns := s.conns
	s.conns = nil
	s.mu.Unlock()
	for _, ws := range conns {
		ws.Close()
	}
	s.wg.Wait()
	s.srv.Close()
}
