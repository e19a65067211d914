package answer

import (
	"bytes"
	"context"
	"image/color"
	"io"
	"log/slog"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// countingSource serves one body for every URL and counts the fetches.
type countingSource struct {
	body  []byte
	opens atomic.Int64
}

func (s *countingSource) Open(ctx context.Context, raw string) (io.ReadCloser, func(string) string, error) {
	s.opens.Add(1)
	return io.NopCloser(bytes.NewReader(s.body)), func(string) string { return "image/png" }, nil
}

func TestPalettesAreRemembered(t *testing.T) {
	img := encodePNG(t, stripes(40, 40, []color.Color{color.NRGBA{0x10, 0x20, 0x60, 0xff}}, []int{1}))
	asset := &Asset{URL: "https://img.example/logo.png", Type: "png"}
	t.Run("a shared palette is read once", func(t *testing.T) {
		c := New(Config{Logger: slog.New(slog.DiscardHandler)})
		src := &countingSource{body: img}
		for range 3 {
			if got := c.withPalette(t.Context(), src, true, asset); got.Palette == nil || got.BackgroundColor != "#102060" {
				t.Fatalf("palette %+v", got.Palette)
			}
		}
		if n := src.opens.Load(); n != 1 {
			t.Errorf("the image was fetched %d times, want once", n)
		}
		if asset.Palette != nil {
			t.Error("the probed asset itself was changed; it is shared with other requests")
		}
	})
	t.Run("a palette read with the caller's headers is not kept", func(t *testing.T) {
		c := New(Config{Logger: slog.New(slog.DiscardHandler)})
		src := &countingSource{body: img}
		c.withPalette(t.Context(), src, false, asset)
		c.withPalette(t.Context(), src, false, asset)
		if n := src.opens.Load(); n != 2 {
			t.Errorf("the image was fetched %d times, want twice", n)
		}
	})
	t.Run("an image that has no palette is tried again only once its miss expires", func(t *testing.T) {
		c := New(Config{Logger: slog.New(slog.DiscardHandler)})
		now := time.Now()
		c.palettes.now = func() time.Time { return now }
		src := &countingSource{body: []byte("not an image")}
		for range 2 {
			if got := c.withPalette(t.Context(), src, true, asset); got != asset {
				t.Fatal("an unreadable image changed the asset")
			}
		}
		now = now.Add(paletteMissTTL + time.Second)
		c.withPalette(t.Context(), src, true, asset)
		if n := src.opens.Load(); n != 2 {
			t.Errorf("the image was fetched %d times, want twice", n)
		}
	})
}

func TestPaletteCacheIsBounded(t *testing.T) {
	c := newPaletteCache()
	p := &Palette{Colors: []string{"#000000"}}
	for i := range maxPalettes + 100 {
		c.put("https://img.example/"+strconv.Itoa(i), p)
	}
	if c.order.Len() != maxPalettes || len(c.byURL) != maxPalettes {
		t.Errorf("%d palettes kept, want %d", c.order.Len(), maxPalettes)
	}
	if _, ok := c.get("https://img.example/0"); ok {
		t.Error("the oldest palette was kept past the bound")
	}
	if _, ok := c.get("https://img.example/" + strconv.Itoa(maxPalettes+99)); !ok {
		t.Error("the newest palette was dropped")
	}
}
