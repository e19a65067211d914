package answer

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/meta"
)

// mediaSource answers each URL by its path: a slow one never answers in
// time, an image is no media file, a video is one.
type mediaSource struct{}

func (mediaSource) Open(ctx context.Context, raw string) (io.ReadCloser, func(string) string, error) {
	switch {
	case strings.Contains(raw, "slow"):
		<-ctx.Done()
		return nil, nil, ctx.Err()
	case strings.Contains(raw, "picture"):
		return io.NopCloser(strings.NewReader("GIF89a")), func(h string) string { return map[string]string{"content-type": "image/gif"}[h] }, nil
	}
	return io.NopCloser(strings.NewReader("")), func(h string) string {
		return map[string]string{"content-type": "video/webm", "content-length": "2048"}[h]
	}, nil
}

func TestPickMedia(t *testing.T) {
	c := New(Config{Logger: slog.New(slog.DiscardHandler)})
	cands := []meta.MediaCandidate{
		{URL: "https://m.example/picture.mp4", Type: "mp4"},
		{URL: "https://m.example/film.webm", Type: "webm", Width: 640, Height: 360, Duration: 12.5},
	}
	a, err := c.pickMedia(t.Context(), mediaSource{}, true, cands)
	if err != nil || a == nil || a.URL != "https://m.example/film.webm" || a.Size != 2048 || a.Width != 640 || a.Duration != 12.5 {
		t.Errorf("got %+v, %v; want the webm with its declared size and duration", a, err)
	}
	t.Run("candidates that never answer cost one probe's budget, not one each", func(t *testing.T) {
		start := time.Now()
		slow := append([]meta.MediaCandidate{{URL: "https://m.example/slow-1.mp4"}, {URL: "https://m.example/slow-2.mp4"}}, cands...)
		a, err := c.pickMedia(t.Context(), mediaSource{}, true, slow)
		if err != nil || a == nil || a.URL != "https://m.example/film.webm" {
			t.Errorf("got %+v, %v", a, err)
		}
		if d := time.Since(start); d > probeBudget+time.Second {
			t.Errorf("took %s; two silent candidates must not cost two budgets of %s", d, probeBudget)
		}
	})
	t.Run("with ping off the first declared stands", func(t *testing.T) {
		a, _ := c.pickMedia(t.Context(), nil, false, cands)
		if a == nil || a.URL != cands[0].URL || a.Size != 0 {
			t.Errorf("got %+v", a)
		}
	})
}
