package answer

import (
	"container/list"
	"sync"
	"time"
)

// Palettes are remembered like probes: a site's logo is on every page of
// it, and reading its colours costs a download and a decode. A failure
// is remembered briefly, so an image that cannot be read costs one try a
// minute, not one per request.
const (
	paletteHitTTL  = 10 * time.Minute
	paletteMissTTL = time.Minute
	// maxPalettes bounds the remembered palettes; one costs a few
	// hundred bytes besides its URL, which MaxAssetURLBytes bounds.
	maxPalettes = 1024
)

type paletteEntry struct {
	url     string
	palette *Palette // nil: it could not be read
	expires time.Time
}

// paletteCache remembers the palettes of image URLs, the oldest going
// first past maxPalettes. Only palettes read without a caller's headers
// are kept, as with probes.
type paletteCache struct {
	mu    sync.Mutex
	byURL map[string]*list.Element // of *paletteEntry
	order *list.List               // oldest first
	now   func() time.Time
}

func newPaletteCache() *paletteCache {
	return &paletteCache{byURL: map[string]*list.Element{}, order: list.New(), now: time.Now}
}

// get returns the palette remembered for url and whether one (or a
// failure) is.
func (c *paletteCache) get(url string) (*Palette, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byURL[url]
	if !ok {
		return nil, false
	}
	e := el.Value.(*paletteEntry)
	if !c.now().Before(e.expires) {
		c.order.Remove(el)
		delete(c.byURL, url)
		return nil, false
	}
	return e.palette, true
}

func (c *paletteCache) put(url string, p *Palette) {
	ttl := paletteHitTTL
	if p == nil {
		ttl = paletteMissTTL
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byURL[url]; ok {
		c.order.Remove(el)
	}
	c.byURL[url] = c.order.PushBack(&paletteEntry{url: url, palette: p, expires: c.now().Add(ttl)})
	for c.order.Len() > maxPalettes {
		oldest := c.order.Front()
		c.order.Remove(oldest)
		delete(c.byURL, oldest.Value.(*paletteEntry).url)
	}
}
