package logging

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuilder is a strings.Builder safe for the buffer's timer goroutine.
type lockedBuilder struct {
	mu sync.Mutex
	sb strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sb.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sb.String()
}

func TestBuffer(t *testing.T) {
	t.Run("info lines wait for the interval, a warning goes out at once with them", func(t *testing.T) {
		var out lockedBuilder
		b := NewBuffer(&out, time.Hour)
		defer b.Close()
		log := New(b, "text", "info")
		log.Info("first")
		log.With("component", "x").Info("second")
		if got := out.String(); got != "" {
			t.Fatalf("written before the interval: %q", got)
		}
		log.With("component", "x").Warn("trouble")
		got := out.String()
		for _, want := range []string{"msg=first", "msg=second", "msg=trouble"} {
			if !strings.Contains(got, want) {
				t.Errorf("after a warning the output lacks %s: %q", want, got)
			}
		}
	})
	t.Run("the timer flushes", func(t *testing.T) {
		var out lockedBuilder
		b := NewBuffer(&out, 20*time.Millisecond)
		defer b.Close()
		New(b, "json", "info").Info("later")
		deadline := time.Now().Add(5 * time.Second)
		for !strings.Contains(out.String(), `"msg":"later"`) {
			if time.Now().After(deadline) {
				t.Fatal("the line never left the buffer")
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	t.Run("close flushes, and later lines go straight out", func(t *testing.T) {
		var out lockedBuilder
		b := NewBuffer(&out, time.Hour)
		log := New(b, "text", "info")
		log.Info("before")
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "msg=before") {
			t.Fatalf("close did not flush: %q", out.String())
		}
		log.Info("after")
		if !strings.Contains(out.String(), "msg=after") {
			t.Fatalf("a line after close was held: %q", out.String())
		}
		if err := b.Close(); err != nil {
			t.Fatal("a second close failed:", err)
		}
	})
	t.Run("a full buffer writes whole lines", func(t *testing.T) {
		var out lockedBuilder
		b := NewBuffer(&out, time.Hour)
		defer b.Close()
		log := New(b, "text", "info")
		long := strings.Repeat("x", 1000)
		for range 100 {
			log.Info("line", "v", long)
		}
		got := out.String()
		if got == "" {
			t.Fatal("100 kB of lines were all held in a 64 KiB buffer")
		}
		if !strings.HasSuffix(got, "\n") {
			t.Error("a flush split a line")
		}
	})
}
