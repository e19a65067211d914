package answer

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"slices"
	"time"

	"github.com/glimpse/glimpse/orchestrator/render"
)

// Bounds of computing a palette. The image is one the page chose, so its
// bytes, its pixels and the time it takes are glimpse's to bound: a
// palette that would pass them is left out, never the asset.
const (
	paletteBudget    = 4 * time.Second
	maxPaletteBytes  = 8 << 20
	maxPalettePixels = 1 << 24 // 16 megapixels: 64 MiB decoded
	// paletteSamples is about how many pixels are read: a grid over the
	// image, whatever its size, so the cost after decoding is fixed.
	paletteSamples = 64 * 64
	// paletteColors is how many colours the palette has at most, as
	// Microlink's.
	paletteColors = 6
)

// Palette is the colour fields Microlink adds to an image object: the
// dominant colours as hex, most dominant first, the background colour
// (the most dominant), and a colour and an alternative colour for text
// drawn on that background, picked for contrast.
type Palette struct {
	Colors           []string `json:"palette"`
	BackgroundColor  string   `json:"background_color"`
	Color            string   `json:"color"`
	AlternativeColor string   `json:"alternative_color"`
}

// errNoPalette is an image that has no colours to read: every pixel
// transparent.
var errNoPalette = errors.New("the image has no opaque pixels")

// fetchPalette fetches the image at raw through src and computes its
// palette, within paletteBudget and maxPaletteBytes.
func fetchPalette(ctx context.Context, src render.Source, raw string) (*Palette, error) {
	ctx, cancel := context.WithTimeout(ctx, paletteBudget)
	defer cancel()
	body, _, err := src.Open(ctx, raw)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, maxPaletteBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxPaletteBytes {
		return nil, fmt.Errorf("%s is larger than the %d bytes a palette is read from", raw, maxPaletteBytes)
	}
	return paletteOf(ctx, data)
}

// paletteOf decodes an encoded image within the decode bounds and reads
// its palette.
func paletteOf(ctx context.Context, data []byte) (*Palette, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("the image cannot be decoded for a palette: %w", err)
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > maxPalettePixels || cfg.Height > maxPalettePixels ||
		cfg.Width*cfg.Height > maxPalettePixels {
		return nil, fmt.Errorf("the image is %d×%d pixels; a palette is read from at most %d", cfg.Width, cfg.Height, maxPalettePixels)
	}
	if err := checkDecodeWork(data, format, cfg.Width*cfg.Height); err != nil {
		return nil, err
	}
	img, err := decodeWithin(ctx, data)
	if err != nil {
		return nil, err
	}
	return paletteOfImage(img)
}

// rgb is one colour, 8 bits a channel.
type rgb [3]uint8

// paletteOfImage reads the palette of a decoded image: a fixed grid of
// samples (transparent ones left out), quantized by median cut into at
// most paletteColors boxes, ordered by how many samples each holds.
func paletteOfImage(img image.Image) (*Palette, error) {
	b := img.Bounds()
	step := max(1, int(math.Sqrt(float64(b.Dx()*b.Dy())/paletteSamples)))
	samples := make([]rgb, 0, paletteSamples*2)
	for y := b.Min.Y + step/2; y < b.Max.Y; y += step {
		for x := b.Min.X + step/2; x < b.Max.X; x += step {
			r, g, bl, a := img.At(x, y).RGBA()
			if a < 0x8000 {
				continue // mostly transparent: not a colour the image shows
			}
			// Un-premultiply, so a half-transparent red counts as red.
			samples = append(samples, rgb{uint8(r * 0xff / a), uint8(g * 0xff / a), uint8(bl * 0xff / a)})
		}
	}
	if len(samples) == 0 {
		return nil, errNoPalette
	}
	colors := medianCut(samples, paletteColors)
	p := &Palette{Colors: make([]string, len(colors))}
	for i, c := range colors {
		p.Colors[i] = c.hex()
	}
	p.BackgroundColor = p.Colors[0]
	p.Color, p.AlternativeColor = textColors(colors)
	return p, nil
}

// box is one box of the median cut: the samples in it.
type box []rgb

// widest is the channel along which the box's samples spread most, and
// that spread.
func (b box) widest() (channel int, spread int) {
	for c := range 3 {
		lo, hi := uint8(255), uint8(0)
		for _, s := range b {
			lo, hi = min(lo, s[c]), max(hi, s[c])
		}
		if d := int(hi) - int(lo); d > spread {
			channel, spread = c, d
		}
	}
	return channel, spread
}

func (b box) mean() rgb {
	var sum [3]int
	for _, s := range b {
		for c := range 3 {
			sum[c] += int(s[c])
		}
	}
	n := len(b)
	return rgb{uint8((sum[0] + n/2) / n), uint8((sum[1] + n/2) / n), uint8((sum[2] + n/2) / n)}
}

// medianCut splits the samples into at most n boxes, each time cutting
// the box with the most samples times spread at the median of its widest
// channel, and returns the boxes' mean colours, the most populous first.
// Boxes whose colours are indistinguishable are merged, so an image of
// two colours has a palette of two.
func medianCut(samples []rgb, n int) []rgb {
	boxes := []box{samples}
	for len(boxes) < n {
		best, bestScore, bestChannel := -1, 0, 0
		for i, b := range boxes {
			c, spread := b.widest()
			if score := spread * len(b); spread > 0 && len(b) > 1 && score > bestScore {
				best, bestScore, bestChannel = i, score, c
			}
		}
		if best < 0 {
			break
		}
		b := boxes[best]
		slices.SortFunc(b, func(x, y rgb) int { return cmp.Compare(x[bestChannel], y[bestChannel]) })
		mid := len(b) / 2
		// Keep equal values together, so a flat area is not split in two.
		for mid < len(b) && mid > 0 && b[mid][bestChannel] == b[mid-1][bestChannel] {
			mid++
		}
		if mid >= len(b) {
			mid = len(b) / 2
			for mid > 0 && b[mid][bestChannel] == b[mid-1][bestChannel] {
				mid--
			}
		}
		if mid == 0 {
			break
		}
		boxes = append(boxes[:best], append([]box{b[:mid], b[mid:]}, boxes[best+1:]...)...)
	}
	type swatch struct {
		c rgb
		n int
	}
	var out []swatch
	for _, b := range boxes {
		m := b.mean()
		merged := false
		for i := range out {
			if distance(out[i].c, m) < 12 {
				out[i].n += len(b)
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, swatch{m, len(b)})
		}
	}
	slices.SortStableFunc(out, func(a, b swatch) int { return cmp.Compare(b.n, a.n) })
	colors := make([]rgb, len(out))
	for i, s := range out {
		colors[i] = s.c
	}
	return colors
}

func distance(a, b rgb) float64 {
	var d float64
	for c := range 3 {
		x := float64(a[c]) - float64(b[c])
		d += x * x
	}
	return math.Sqrt(d)
}

func (c rgb) hex() string {
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}

// luminance is WCAG 2's relative luminance.
func (c rgb) luminance() float64 {
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c[0]) + 0.7152*lin(c[1]) + 0.0722*lin(c[2])
}

// contrast is WCAG 2's contrast ratio, from 1 to 21.
func contrast(a, b rgb) float64 {
	la, lb := a.luminance(), b.luminance()
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// Contrast thresholds of WCAG 2 (AA): 4.5 for text, 3 for large text.
const (
	textContrast      = 4.5
	largeTextContrast = 3
)

// textColors picks, for text on the palette's first colour (the
// background), the palette colour of most contrast when it reaches WCAG's
// 4.5 for text, else black or white, whichever contrasts more; and an
// alternative: the next palette colour that reaches 3 (large text), else
// black or white, the one not picked or the better.
func textColors(palette []rgb) (color, alternative string) {
	bg := palette[0]
	black, white := rgb{0, 0, 0}, rgb{255, 255, 255}
	plain := black
	if contrast(white, bg) > contrast(black, bg) {
		plain = white
	}
	rest := slices.Clone(palette[1:])
	slices.SortStableFunc(rest, func(a, b rgb) int { return cmp.Compare(contrast(b, bg), contrast(a, bg)) })
	first := plain
	if len(rest) > 0 && contrast(rest[0], bg) >= textContrast {
		first, rest = rest[0], rest[1:]
	}
	second := black
	if first == black {
		second = white
	}
	if first != plain && first != black && first != white {
		second = plain
	}
	if len(rest) > 0 && contrast(rest[0], bg) >= largeTextContrast && rest[0] != first {
		second = rest[0]
	}
	return first.hex(), second.hex()
}
