package answer

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/meta"
)

// slowSource serves a 200x100 png at every URL after delay, except URLs
// containing "hang", which never answer within their context, and counts
// what it was asked for.
type slowSource struct {
	delay time.Duration
	mu    sync.Mutex
	opens map[string]int
}

func testPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 200, 100))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var pngBytes []byte

func (s *slowSource) Open(ctx context.Context, raw string) (io.ReadCloser, func(string) string, error) {
	s.mu.Lock()
	s.opens[raw]++
	s.mu.Unlock()
	delay := s.delay
	if strings.Contains(raw, "hang") {
		delay = time.Hour
	}
	select {
	case <-time.After(delay):
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	if strings.Contains(raw, "missing") {
		return nil, nil, errors.New("answered HTTP 404")
	}
	return io.NopCloser(bytes.NewReader(pngBytes)), func(string) string { return "" }, nil
}

func (s *slowSource) count(raw string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opens[raw]
}

func cands(urls ...string) []meta.Candidate {
	out := make([]meta.Candidate, len(urls))
	for i, u := range urls {
		out[i] = meta.Candidate{URL: u, Type: "png"}
	}
	return out
}

func TestAssetProbes(t *testing.T) {
	pngBytes = testPNG(t)
	c := New(Config{Logger: slog.New(slog.DiscardHandler)})

	t.Run("candidates are probed at once, so a host that never answers holds only its own probe", func(t *testing.T) {
		src := &slowSource{delay: 200 * time.Millisecond, opens: map[string]int{}}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		start := time.Now()
		a := c.pickAsset(ctx, src, true, true, cands("https://a.example/missing-1.png", "https://a.example/missing-2.png", "https://a.example/ok.png"))
		if a == nil || a.URL != "https://a.example/ok.png" || a.Width != 200 {
			t.Fatalf("picked %+v, want the first candidate that is an image", a)
		}
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Errorf("three probes of 200ms each took %s; they run one after another", d)
		}
	})

	t.Run("a higher-ranked image wins over a faster lower-ranked one", func(t *testing.T) {
		src := &slowSource{delay: 50 * time.Millisecond, opens: map[string]int{}}
		a := c.pickAsset(t.Context(), src, true, true, cands("https://b.example/first.png", "https://b.example/second.png"))
		if a == nil || a.URL != "https://b.example/first.png" {
			t.Fatalf("picked %+v, want the first candidate", a)
		}
	})

	t.Run("each URL is fetched once, across fields and requests", func(t *testing.T) {
		src := &slowSource{delay: 20 * time.Millisecond, opens: map[string]int{}}
		var wg sync.WaitGroup
		for range 5 {
			wg.Go(func() {
				c.pickAsset(t.Context(), src, true, true, cands("https://c.example/logo.png"))
			})
		}
		wg.Wait()
		c.pickAsset(t.Context(), src, true, true, cands("https://c.example/logo.png"))
		if n := src.count("https://c.example/logo.png"); n != 1 {
			t.Errorf("the logo was fetched %d times for six askers", n)
		}
	})

	t.Run("a failure is remembered, so the next request does not wait for the same host", func(t *testing.T) {
		src := &slowSource{opens: map[string]int{}}
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		if a := c.pickAsset(ctx, src, true, true, cands("https://d.example/hang.png")); a != nil {
			t.Fatalf("a candidate that never answers was picked: %+v", a)
		}
		// The probe goes on within its own budget; wait for its verdict.
		time.Sleep(probeBudget + 200*time.Millisecond)
		start := time.Now()
		c.pickAsset(t.Context(), src, true, true, cands("https://d.example/hang.png"))
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Errorf("the second request waited %s for a host known not to answer", d)
		}
		if n := src.count("https://d.example/hang.png"); n != 1 {
			t.Errorf("the silent host was asked %d times", n)
		}
	})

	t.Run("a probe made with a caller's headers serves no other request", func(t *testing.T) {
		src := &slowSource{opens: map[string]int{}}
		c.pickAsset(t.Context(), src, false, true, cands("https://e.example/private.png"))
		c.pickAsset(t.Context(), src, false, true, cands("https://e.example/private.png"))
		if n := src.count("https://e.example/private.png"); n != 2 {
			t.Errorf("an asset fetched with a caller's cookie was probed %d times for two callers; want one each", n)
		}
	})
}
