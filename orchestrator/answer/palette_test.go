package answer

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
	"time"
)

// stripes is an image of horizontal bands, each colour taking its share
// of the rows, so the dominant colours and their order are known.
func stripes(w, h int, bands []color.Color, shares []int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	total := 0
	for _, s := range shares {
		total += s
	}
	y := 0
	for i, c := range bands {
		rows := h * shares[i] / total
		if i == len(bands)-1 {
			rows = h - y
		}
		for ; rows > 0; rows-- {
			for x := range w {
				img.Set(x, y, c)
			}
			y++
		}
	}
	return img
}

func TestPaletteOfKnownImages(t *testing.T) {
	navy := color.NRGBA{0x10, 0x20, 0x60, 0xff}
	cream := color.NRGBA{0xf5, 0xf0, 0xe0, 0xff}
	red := color.NRGBA{0xe0, 0x20, 0x20, 0xff}
	yellow := color.NRGBA{0xff, 0xe0, 0x40, 0xff}
	tests := []struct {
		name      string
		img       image.Image
		palette   []string // the first colours, in order
		bg        string
		color     string
		alternate string
	}{
		{"a navy image with a cream band: navy behind cream text",
			stripes(300, 200, []color.Color{navy, cream}, []int{70, 30}),
			[]string{"#102060", "#f5f0e0"}, "#102060", "#f5f0e0", "#ffffff"},
		{"three colours by their share, the largest first",
			stripes(120, 300, []color.Color{red, cream, navy}, []int{20, 50, 30}),
			[]string{"#f5f0e0", "#102060", "#e02020"}, "#f5f0e0", "#102060", "#e02020"},
		{"one colour: text in black or white, whichever reads",
			stripes(50, 50, []color.Color{yellow}, []int{1}),
			[]string{"#ffe040"}, "#ffe040", "#000000", "#ffffff"},
		{"transparent pixels are no colour of the image",
			stripes(64, 64, []color.Color{color.NRGBA{0, 0, 0, 0}, red}, []int{90, 10}),
			[]string{"#e02020"}, "#e02020", "#ffffff", "#000000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := paletteOf(context.Background(), encodePNG(t, tc.img))
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Colors) < len(tc.palette) || strings.Join(p.Colors[:len(tc.palette)], ",") != strings.Join(tc.palette, ",") {
				t.Errorf("palette %v, want it to start %v", p.Colors, tc.palette)
			}
			if len(p.Colors) > paletteColors {
				t.Errorf("%d colours, at most %d", len(p.Colors), paletteColors)
			}
			if p.BackgroundColor != tc.bg || p.Color != tc.color || p.AlternativeColor != tc.alternate {
				t.Errorf("background %s color %s alternative %s, want %s %s %s", p.BackgroundColor, p.Color, p.AlternativeColor, tc.bg, tc.color, tc.alternate)
			}
		})
	}
}

// A photograph-like JPEG: its palette keeps the two dominant regions apart
// though compression blurs their edges.
func TestPaletteOfALossyImage(t *testing.T) {
	img := stripes(400, 300, []color.Color{color.NRGBA{0x20, 0x80, 0x30, 0xff}, color.NRGBA{0x90, 0xc0, 0xf0, 0xff}}, []int{60, 40})
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 60}); err != nil {
		t.Fatal(err)
	}
	p, err := paletteOf(context.Background(), b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Colors) < 2 || !near(p.Colors[0], "#208030") || !near(p.Colors[1], "#90c0f0") {
		t.Errorf("palette %v, want green then light blue first", p.Colors)
	}
}

func near(got, want string) bool {
	var a, b rgb
	for i := range 3 {
		a[i] = hexByte(got[1+2*i:])
		b[i] = hexByte(want[1+2*i:])
	}
	return distance(a, b) < 16
}

func hexByte(s string) uint8 {
	v := 0
	for _, c := range s[:2] {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= int(c - '0')
		default:
			v |= int(c-'a') + 10
		}
	}
	return uint8(v)
}

func TestPaletteBounds(t *testing.T) {
	t.Run("an image larger than the byte bound is not read", func(t *testing.T) {
		huge := bytes.Repeat([]byte{0}, maxPaletteBytes+10)
		_, err := fetchPalette(context.Background(), fixedSource{body: bytes.NewReader(huge), contentType: "image/png"}, "https://img.example/huge.png")
		if err == nil || !strings.Contains(err.Error(), "larger than") {
			t.Errorf("err %v, want the byte bound", err)
		}
	})
	t.Run("an image whose header claims too many pixels is not decoded", func(t *testing.T) {
		// A PNG header for 20000×20000 pixels, with nothing after it.
		big := encodePNG(t, image.NewNRGBA(image.Rect(0, 0, 1, 1)))
		big[16], big[17], big[18], big[19] = 0, 0, 0x4e, 0x20
		big[20], big[21], big[22], big[23] = 0, 0, 0x4e, 0x20
		binary.BigEndian.PutUint32(big[29:33], crc32.ChecksumIEEE(big[12:29]))
		_, err := paletteOf(context.Background(), big)
		if err == nil || !strings.Contains(err.Error(), "pixels") {
			t.Errorf("err %v, want the pixel bound", err)
		}
	})
	t.Run("what is no image has no palette", func(t *testing.T) {
		if _, err := paletteOf(context.Background(), []byte("<svg xmlns='http://www.w3.org/2000/svg'/>")); err == nil {
			t.Error("an SVG document gave a palette")
		}
	})
	t.Run("a large image costs the samples, not its pixels", func(t *testing.T) {
		img := stripes(4000, 3000, []color.Color{color.NRGBA{1, 2, 3, 255}, color.NRGBA{200, 100, 50, 255}}, []int{1, 1})
		start := time.Now()
		if _, err := paletteOfImage(img); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 200*time.Millisecond {
			t.Errorf("a 12-megapixel image took %s after decoding", d)
		}
	})
	t.Run("an image with every pixel transparent has none", func(t *testing.T) {
		if _, err := paletteOfImage(image.NewNRGBA(image.Rect(0, 0, 10, 10))); err != errNoPalette {
			t.Errorf("err %v, want errNoPalette", err)
		}
	})
}

func TestContrastIsWCAGs(t *testing.T) {
	if c := contrast(rgb{0, 0, 0}, rgb{255, 255, 255}); c < 20.99 || c > 21.01 {
		t.Errorf("black on white %g, want 21", c)
	}
	if c := contrast(rgb{0x77, 0x77, 0x77}, rgb{255, 255, 255}); c < 4.47 || c > 4.49 {
		t.Errorf("#777 on white %g, want 4.48", c)
	}
}

// BenchmarkPalette reads the palette of a 1200×630 picture (the size of a
// typical og:image), decoding included, as PNG and as JPEG.
func BenchmarkPalette(b *testing.B) {
	img := image.NewNRGBA(image.Rect(0, 0, 1200, 630))
	for y := range 630 {
		for x := range 1200 {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x / 5), uint8(y / 3), uint8((x + y) / 8), 0xff})
		}
	}
	var p, j bytes.Buffer
	if err := png.Encode(&p, img); err != nil {
		b.Fatal(err)
	}
	if err := jpeg.Encode(&j, img, &jpeg.Options{Quality: 85}); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{{"png", p.Bytes()}, {"jpeg", j.Bytes()}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.data)))
			for b.Loop() {
				if _, err := paletteOf(context.Background(), tc.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
