package answer

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// endlessSource serves, at every URL, a PNG's header followed by bytes
// that never end and no content-length, and counts what was read.
type endlessSource struct {
	head  []byte
	read  atomic.Int64
	opens atomic.Int64
}

func (s *endlessSource) Open(ctx context.Context, raw string) (io.ReadCloser, func(string) string, error) {
	s.opens.Add(1)
	if strings.Contains(raw, "missing") {
		return nil, nil, io.ErrUnexpectedEOF
	}
	return &endlessBody{src: s}, func(string) string { return "" }, nil
}

type endlessBody struct {
	src *endlessSource
	off int
}

func (b *endlessBody) Read(p []byte) (int, error) {
	n := len(p)
	if b.off < len(b.src.head) {
		n = copy(p, b.src.head[b.off:])
	}
	b.off += n
	b.src.read.Add(int64(n))
	return n, nil
}

func (b *endlessBody) Close() error { return nil }

func TestProbesAreBoundedByWhatTheyNeed(t *testing.T) {
	pngBytes = testPNG(t)

	t.Run("an asset that never ends is read only as far as its description needs", func(t *testing.T) {
		c := New(Config{Logger: slog.New(slog.DiscardHandler)})
		src := &endlessSource{head: pngBytes[:64]}
		a := c.pickAsset(t.Context(), src, true, true, cands("https://f.example/endless.png"))
		if a == nil || a.Width != 200 || a.Height != 100 {
			t.Fatalf("picked %+v, want the 200x100 image", a)
		}
		if a.Size != 0 {
			t.Errorf("an asset longer than is counted reports size %d", a.Size)
		}
		if n := src.read.Load(); n > maxAssetCountBytes+64<<10 {
			t.Errorf("the probe read %d bytes of one asset", n)
		}
	})

	t.Run("a page-declared URL longer than the cap is neither fetched nor reported", func(t *testing.T) {
		c := New(Config{Logger: slog.New(slog.DiscardHandler)})
		src := &endlessSource{head: pngBytes}
		long := "https://g.example/" + strings.Repeat("a", 1<<20) + ".png"
		for _, ping := range []bool{true, false} {
			if a := c.pickAsset(t.Context(), src, true, ping, cands(long)); a != nil {
				t.Errorf("ping=%t: a URL of 1 MiB was picked", ping)
			}
		}
		if a := c.pickAsset(t.Context(), src, true, false, cands(long, "https://g.example/short.png")); a == nil || a.URL != "https://g.example/short.png" {
			t.Errorf("the next candidate after a long URL: %+v", a)
		}
		if n := src.opens.Load(); n != 0 {
			t.Errorf("a URL of 1 MiB was fetched %d times", n)
		}
	})

	t.Run("failed probes of long URLs keep no more than the budget", func(t *testing.T) {
		c := New(Config{Logger: slog.New(slog.DiscardHandler)})
		src := &endlessSource{}
		pad := strings.Repeat("b", MaxAssetURLBytes-64)
		for i := range 2000 {
			u := "https://h.example/missing-" + strings.Repeat("x", i%7) + pad + "-" + strconv.Itoa(i)
			c.pickAsset(t.Context(), src, true, true, cands(u))
		}
		n, bytes := c.probes.held()
		t.Logf("%d results kept, %d bytes", n, bytes)
		if bytes > maxProbeBytes || n == 0 {
			t.Errorf("%d results keep %d bytes; the budget is %d", n, bytes, maxProbeBytes)
		}
	})
}
