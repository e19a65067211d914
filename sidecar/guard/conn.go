package guard

import (
	"errors"
	"net"
	"os"
	"sync/atomic"
	"time"
)

// activity is the time of the last byte moved, shared by the two halves of
// a tunnel so that traffic in one direction keeps the other alive.
type activity struct{ last atomic.Int64 }

func (a *activity) touch()               { a.last.Store(time.Now().UnixNano()) }
func (a *activity) since() time.Duration { return time.Since(time.Unix(0, a.last.Load())) }

// idleConn fails reads and writes once nothing has moved for idle. It sets
// its own deadlines on every call, so it must be the only one setting them.
type idleConn struct {
	net.Conn
	idle time.Duration
	act  *activity
}

func newIdleConn(c net.Conn, idle time.Duration, act *activity) *idleConn {
	act.touch()
	return &idleConn{Conn: c, idle: idle, act: act}
}

func (c *idleConn) Read(b []byte) (int, error) {
	for {
		c.Conn.SetReadDeadline(time.Now().Add(c.idle))
		n, err := c.Conn.Read(b)
		if n > 0 {
			c.act.touch()
		}
		if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) && c.act.since() < c.idle {
			continue // the other direction is busy; this one may wait
		}
		return n, err
	}
}

func (c *idleConn) Write(b []byte) (int, error) {
	c.Conn.SetWriteDeadline(time.Now().Add(c.idle))
	n, err := c.Conn.Write(b)
	if n > 0 {
		c.act.touch()
	}
	return n, err
}

// CloseWrite half-closes when the underlying connection can.
func (c *idleConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}
