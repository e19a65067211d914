package orchestrator

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// NewLogger makes the structured logger: JSON for production, text for a
// terminal. With a *LogBuffer as w, a record at Warn or above is written
// out at once, with whatever was buffered before it.
func NewLogger(format, level string, w io.Writer) *slog.Logger {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		lv = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: lv}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if format == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	if b, ok := w.(*LogBuffer); ok {
		h = flushingHandler{h, b}
	}
	return slog.New(h)
}

// LogBuffer gathers log lines and writes them out at most every interval,
// or when 64 KiB have gathered. One write per request (the access log) was
// a tenth of a cache hit's CPU; a batch costs one write for many lines.
type LogBuffer struct {
	mu     sync.Mutex
	w      *bufio.Writer
	closed bool
	stop   chan struct{}
	done   chan struct{}
}

// NewLogBuffer buffers writes to w and flushes them every interval until
// Close.
func NewLogBuffer(w io.Writer, interval time.Duration) *LogBuffer {
	b := &LogBuffer{w: bufio.NewWriterSize(w, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
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
func (b *LogBuffer) Write(p []byte) (int, error) {
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
func (b *LogBuffer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Flush()
}

// Close stops the timer and flushes; later writes go straight through.
func (b *LogBuffer) Close() error {
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
	b *LogBuffer
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
