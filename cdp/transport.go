package cdp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Transport is the seam where the browser enters: one whole message per call.
//
// ReadMessage is called from one goroutine only and may keep the returned
// slice's memory for as long as it likes: the Conn takes ownership of it.
// Close must make a blocked ReadMessage return, since Conn.Close waits for
// the read loop to end.
type Transport interface {
	ReadMessage() ([]byte, error)
	WriteMessage(data []byte) error // Conn serialises calls: one writer at a time
	Close() error
}

const handshakeTimeout = 30 * time.Second

// Dial opens a WebSocket to a DevTools browser endpoint such as
// ws://127.0.0.1:9230/devtools/browser/<id> and starts the read loop. ctx
// bounds the handshake only; the connection lives until Close or until the
// browser goes away.
func Dial(ctx context.Context, wsURL string, opts ...Option) (*Conn, error) {
	o := buildOptions(opts)
	d := websocket.Dialer{
		HandshakeTimeout: handshakeTimeout,
		// DevTools traffic stays on loopback or inside the cluster, where
		// compression only costs CPU.
		EnableCompression: false,
		ReadBufferSize:    64 << 10,
		WriteBufferSize:   64 << 10,
	}
	ws, resp, err := d.DialContext(ctx, wsURL, o.header)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("connecting to the DevTools endpoint %s: the server answered %s instead of a WebSocket upgrade: %w", wsURL, resp.Status, err)
		}
		return nil, fmt.Errorf("connecting to the DevTools endpoint %s: %w", wsURL, err)
	}
	ws.SetReadLimit(o.readLimit)
	return newConn(&wsTransport{ws: ws, readLimit: o.readLimit, writeTimeout: o.writeTimeout}, o), nil
}

// wsTransport adapts a gorilla WebSocket to Transport.
type wsTransport struct {
	ws           *websocket.Conn
	readLimit    int64
	writeTimeout time.Duration
	closeOnce    sync.Once
	closeErr     error
}

func (t *wsTransport) ReadMessage() ([]byte, error) {
	_, data, err := t.ws.ReadMessage()
	if errors.Is(err, websocket.ErrReadLimit) {
		return nil, fmt.Errorf("%w: the browser sent a message larger than the read limit of %d bytes (raise it with WithReadLimit): %w", ErrMessageTooLarge, t.readLimit, err)
	}
	return data, err
}

func (t *wsTransport) WriteMessage(data []byte) error {
	if err := t.ws.SetWriteDeadline(time.Now().Add(t.writeTimeout)); err != nil {
		return err
	}
	return t.ws.WriteMessage(websocket.TextMessage, data)
}

func (t *wsTransport) Close() error {
	t.closeOnce.Do(func() {
		// A close frame lets the browser end its side cleanly; it is best
		// effort, because the peer may already be gone.
		msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
		_ = t.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
		t.closeErr = t.ws.Close()
	})
	return t.closeErr
}
