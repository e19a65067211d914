package answer

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/render"
)

// verdictSource answers each URL by a word in it: "egress" fails on
// glimpse's own way out, "gone" is the asset's own 404, "hang" never
// answers within its context; anything else is the test PNG.
type verdictSource struct {
	mu    *sync.Mutex
	opens map[string]int
}

func newVerdictSource() verdictSource {
	return verdictSource{mu: &sync.Mutex{}, opens: map[string]int{}}
}

func (s verdictSource) Open(ctx context.Context, raw string) (io.ReadCloser, func(string) string, error) {
	s.mu.Lock()
	s.opens[raw]++
	s.mu.Unlock()
	switch {
	case strings.Contains(raw, "egress"):
		return nil, nil, fmt.Errorf("%w: no healthy sidecar to fetch through", render.ErrEgress)
	case strings.Contains(raw, "gone"):
		return nil, nil, fmt.Errorf("fetching %s answered HTTP 404", raw)
	case strings.Contains(raw, "hang"):
		<-ctx.Done()
		return nil, nil, ctx.Err()
	}
	return io.NopCloser(strings.NewReader(string(pngBytes))), func(string) string { return "" }, nil
}

func TestAnAnswerMissingAnAssetForGlimpsesReasonIsDegraded(t *testing.T) {
	pngBytes = testPNG(t)
	cases := []struct {
		name         string
		cands        []string
		timeout      time.Duration
		wantURL      string
		wantDegraded bool
	}{
		{"an asset that is gone leaves a whole answer", []string{"https://a.example/gone.png"}, 5 * time.Second, "", false},
		{"the first image that loads is a whole answer", []string{"https://a.example/gone.png", "https://a.example/ok.png"}, 5 * time.Second, "https://a.example/ok.png", false},
		{"glimpse's way out failing degrades it", []string{"https://a.example/egress.png"}, 5 * time.Second, "", true},
		{"a later image picked past glimpse's failure degrades it", []string{"https://a.example/egress.png", "https://a.example/ok2.png"}, 5 * time.Second, "https://a.example/ok2.png", true},
		{"the request's time running out degrades it", []string{"https://a.example/hang.png"}, 200 * time.Millisecond, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Config{Logger: slog.New(slog.DiscardHandler)})
			ctx, cancel := context.WithTimeout(t.Context(), tc.timeout)
			defer cancel()
			a, degraded := c.pick(ctx, newVerdictSource(), true, true, cands(tc.cands...))
			got := ""
			if a != nil {
				got = a.URL
			}
			if got != tc.wantURL || degraded != tc.wantDegraded {
				t.Errorf("picked %q, degraded %t; want %q, %t", got, degraded, tc.wantURL, tc.wantDegraded)
			}
		})
	}

	t.Run("a failure of glimpse's way out is not remembered for the asset", func(t *testing.T) {
		c := New(Config{Logger: slog.New(slog.DiscardHandler)})
		src := newVerdictSource()
		for range 2 {
			c.pick(t.Context(), src, true, true, cands("https://b.example/egress.png"))
		}
		if n := src.opens["https://b.example/egress.png"]; n != 2 {
			t.Errorf("the asset was fetched %d times for two requests; an egress failure was kept as its verdict", n)
		}
	})
}
