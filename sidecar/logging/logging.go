// Package logging builds the structured logger of a glimpse binary, and
// a buffer that writes its lines in batches with warnings at once. Both
// binaries use it; it imports nothing of glimpse's.
package logging

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Formats and Levels are the values New accepts; a binary's settings
// check them with envflag.OneOf.
var (
	Formats = []string{"text", "json"}
	Levels  = []string{"debug", "info", "warn", "error"}
)

// New makes the structured logger: format "json" for production, "text"
// for a terminal, at level "debug", "info", "warn" or "error". With a
// *Buffer as w, a record at Warn or above is written out at once, with
// whatever was buffered before it.
func New(w io.Writer, format, level string) *slog.Logger {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		lv = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: lv}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if format == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	if b, ok := w.(*Buffer); ok {
		h = flushingHandler{h, b}
	}
	return slog.New(h)
}

// Buffer gathers log lines and writes them out at most every interval,
// or when 64 KiB have gathered. One write per request (the access log) was
// a tenth of a cache hit's CPU; a batch costs one write for many lines.
type Buffer struct {
	mu     sync.Mutex
	w      *bufio.Writer
	closed bool
	stop   chan struct{}
	done   chan struct{}
}

// NewBuffer buffers writes to w and flushes them every interval until
// Close.
func NewBuffer(w io.Writer, interval time.Duration) *Buffer {
	b := &Buffer{w: bufio.NewWriterSize(w, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				b.Flush()
			case <-b.stop:
				return
			}
		}
	}()
	return b
}

// Write keeps p whole: slog writes one record per call, and a record is
// never split between two flushes.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.w.Available() < len(p) && b.w.Buffered() > 0 {
		if err := b.w.Flush(); err != nil {
			return 0, err
		}
	}
	n, err := b.w.Write(p)
	if err == nil && b.closed {
		err = b.w.Flush()
	}
	return n, err
}

// Flush writes out what is buffered.
func (b *Buffer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Flush()
}

// Close stops the timer and flushes; later writes go straight through.
func (b *Buffer) Close() error {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.stop)
	}
	b.mu.Unlock()
	<-b.done
	return b.Flush()
}

// flushingHandler flushes the buffer behind it after a record at Warn or
// above, so a warning or error is never held back.
type flushingHandler struct {
	slog.Handler
	b *Buffer
}

func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if ferr := h.b.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (h flushingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return flushingHandler{h.Handler.WithAttrs(as), h.b}
}

func (h flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{h.Handler.WithGroup(name), h.b}
}
