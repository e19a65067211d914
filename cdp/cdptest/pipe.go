package cdptest

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// ErrPipeClosed is what a Pipe's reads and writes return once it is closed.
var ErrPipeClosed = errors.New("cdptest: the in-memory transport is closed")

// ErrWriteRefused is what a Pipe's writes return after FailWrites.
var ErrWriteRefused = errors.New("cdptest: the in-memory transport refuses writes")

// Pipe is an in-memory DevTools transport: ReadMessage, WriteMessage and
// Close, as cdp.Transport asks, with a Peer at its other end. Messages
// keep their order and are never split or merged.
type Pipe struct {
	toClient   chan []byte
	toPeer     chan []byte
	closed     chan struct{}
	once       sync.Once
	failWrites atomic.Bool
	done       chan struct{} // the peer's reader has ended
}

// NewPipe returns a transport for the client and the browser's peer at its
// other end, answering by a script of its own. The test's cleanup closes
// the pipe.
func NewPipe(tb testing.TB) (*Pipe, *Peer) {
	pp := &Pipe{
		toClient: make(chan []byte, 1024),
		toPeer:   make(chan []byte, 1024),
		closed:   make(chan struct{}),
		done:     make(chan struct{}),
	}
	p := newPeer(tb, NewScript(), pp.deliver, func() { pp.Close() })
	go p.readPipe(pp)
	tb.Cleanup(func() {
		pp.Close()
		<-pp.done
	})
	return pp, p
}

// readPipe hands the client's messages to the peer until the pipe closes.
func (p *Peer) readPipe(pp *Pipe) {
	defer close(pp.done)
	defer p.markClosed()
	for {
		select {
		case data := <-pp.toPeer:
			p.dispatch(data)
		case <-pp.closed:
			return
		}
	}
}

// ReadMessage returns the browser's next message.
func (pp *Pipe) ReadMessage() ([]byte, error) {
	select {
	case d := <-pp.toClient:
		return d, nil
	case <-pp.closed:
		return nil, ErrPipeClosed
	}
}

// WriteMessage hands one message to the browser.
func (pp *Pipe) WriteMessage(data []byte) error {
	if pp.failWrites.Load() {
		return ErrWriteRefused
	}
	select {
	case pp.toPeer <- bytes.Clone(data):
		return nil
	case <-pp.closed:
		return ErrPipeClosed
	}
}

// Close ends the pipe; a blocked ReadMessage returns.
func (pp *Pipe) Close() error {
	pp.once.Do(func() { close(pp.closed) })
	return nil
}

// FailWrites makes every later write fail, as a socket that broke while
// the client was sending.
func (pp *Pipe) FailWrites() { pp.failWrites.Store(true) }

// deliver is the browser's write: the client's next read.
func (pp *Pipe) deliver(b []byte) error {
	select {
	case <-pp.closed:
		return ErrPipeClosed
	default:
	}
	select {
	case pp.toClient <- b:
		return nil
	case <-pp.closed:
		return ErrPipeClosed
	}
}
