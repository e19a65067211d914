package meta

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"
)

func encoded(t *testing.T, enc func(*bytes.Buffer, image.Image) error, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		img.Set(x, x%h, color.RGBA{R: uint8(x), G: 80, B: 200, A: 255})
	}
	var buf bytes.Buffer
	if err := enc(&buf, img); err != nil {
		t.Fatalf("encoding the test image: %v", err)
	}
	return buf.Bytes()
}

func le16(v int) []byte { return binary.LittleEndian.AppendUint16(nil, uint16(v)) }
func le32(v int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }
func be16(v int) []byte { return binary.BigEndian.AppendUint16(nil, uint16(v)) }
func be32(v int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func riff(chunk string, payload []byte) []byte {
	body := cat([]byte("WEBP"), []byte(chunk), le32(len(payload)), payload)
	return cat([]byte("RIFF"), le32(len(body)), body)
}

func TestImageInfo(t *testing.T) {
	pngBytes := encoded(t, func(b *bytes.Buffer, m image.Image) error { return png.Encode(b, m) }, 640, 360)
	jpegBytes := encoded(t, func(b *bytes.Buffer, m image.Image) error { return jpeg.Encode(b, m, nil) }, 1200, 630)
	gifBytes := encoded(t, func(b *bytes.Buffer, m image.Image) error { return gif.Encode(b, m, nil) }, 48, 32)
	exif := cat([]byte{0xff, 0xe1}, be16(9002), bytes.Repeat([]byte{0}, 9000))
	jpegWithExif := cat(jpegBytes[:2], exif, jpegBytes[2:])
	progressive := cat([]byte{0xff, 0xd8, 0xff, 0xe0}, be16(16), []byte("JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"),
		[]byte{0xff, 0xff, 0xc2}, be16(17), []byte{8}, be16(480), be16(854), bytes.Repeat([]byte{1}, 10))
	vp8 := riff("VP8 ", cat([]byte{0x30, 0x01, 0x00, 0x9d, 0x01, 0x2a}, le16(550), le16(368), make([]byte, 8)))
	// VP8L packs width-1 and height-1 in 14 bits each after the 0x2f signature.
	w1, h1 := 400-1, 301-1
	bits := uint32(w1) | uint32(h1)<<14
	vp8l := riff("VP8L", cat([]byte{0x2f}, le32(int(bits)), make([]byte, 8)))
	vp8x := riff("VP8X", cat([]byte{0x10, 0, 0, 0}, []byte{0xff, 0x0f, 0x00}, []byte{0x37, 0x04, 0x00}, make([]byte, 4)))
	ico := cat([]byte{0, 0, 1, 0}, le16(3),
		[]byte{16, 16, 0, 0}, le16(1), le16(32), le32(100), le32(54),
		[]byte{0, 0, 0, 0}, le16(1), le16(32), le32(100), le32(154), // 0 means 256
		[]byte{48, 48, 0, 0}, le16(1), le16(32), le32(100), le32(254))
	cur := cat([]byte{0, 0, 2, 0}, le16(1), []byte{32, 32, 0, 0}, le16(1), le16(1), le32(100), le32(22))
	bmp := cat([]byte("BM"), le32(70), le32(0), le32(54), le32(40), le32(320), le32(-200), le16(1), le16(24), make([]byte, 24))
	os2bmp := cat([]byte("BM"), le32(40), le32(0), le32(26), le32(12), le16(64), le16(48), le16(1), le16(24))
	ispe := func(w, h int) []byte { return cat(be32(20), []byte("ispe"), be32(0), be32(w), be32(h)) }
	avif := cat(be32(28), []byte("ftypavif"), be32(0), []byte("avifmif1miaf"), be32(80), []byte("meta"), be32(0),
		ispe(1920, 1080), ispe(320, 180))
	heic := cat(be32(24), []byte("ftypheic"), be32(0), []byte("mif1heic"), ispe(4032, 3024))
	tests := []struct {
		name       string
		head       []byte
		typ        string
		w, h       int
		recognised bool
	}{
		{"a PNG made by the encoder", pngBytes, "png", 640, 360, true},
		{"only the first bytes of a PNG", pngBytes[:24], "png", 640, 360, true},
		{"a PNG cut before its header chunk", pngBytes[:12], "png", 0, 0, true},
		{"a JPEG made by the encoder", jpegBytes, "jpg", 1200, 630, true},
		{"a JPEG whose SOF follows a large EXIF block", jpegWithExif, "jpg", 1200, 630, true},
		{"a JPEG cut inside its EXIF block", jpegWithExif[:4096], "jpg", 0, 0, true},
		{"a progressive JPEG with fill bytes", progressive, "jpg", 854, 480, true},
		{"a GIF made by the encoder", gifBytes, "gif", 48, 32, true},
		{"a lossy WebP", vp8, "webp", 550, 368, true},
		{"a lossless WebP", vp8l, "webp", 400, 301, true},
		{"an extended WebP", vp8x, "webp", 4096, 1080, true},
		{"an ICO's largest entry, 0 meaning 256", ico, "ico", 256, 256, true},
		{"a cursor file", cur, "ico", 32, 32, true},
		{"a bottom-up BMP", bmp, "bmp", 320, 200, true},
		{"an OS/2 BMP", os2bmp, "bmp", 64, 48, true},
		{"an AVIF's primary image, not its thumbnail", avif, "avif", 1920, 1080, true},
		{"a HEIC photo", heic, "heic", 4032, 3024, true},
		{"an SVG with width and height", []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60px"><rect/></svg>`), "svg", 120, 60, true},
		{"an SVG with a viewBox only", []byte("\xef\xbb\xbf<?xml version=\"1.0\"?>\n<!-- logo -->\n<!DOCTYPE svg>\n<svg viewBox=\"0 0 512.5 256\"></svg>"), "svg", 513, 256, true},
		{"an SVG with a width and a viewBox", []byte(`<svg width="100" viewBox="0,0,400,200">`), "svg", 100, 50, true},
		{"an SVG in points", []byte(`<svg width="72pt" height="36pt">`), "svg", 96, 48, true},
		{"an SVG sized in percent", []byte(`<svg width="100%" height="100%">`), "svg", 0, 0, true},
		{"a namespaced SVG root", []byte(`<svg:svg width='10' height='20'>`), "svg", 10, 20, true},
		{"an HTML page with an inline SVG is no SVG", []byte(`<!DOCTYPE html><html><body><svg width="10" height="10"></svg>`), "", 0, 0, false},
		{"an element that only starts with svg is no SVG", []byte(`<svgfoo width="1">`), "", 0, 0, false},
		{"text is no image", []byte("hello world"), "", 0, 0, false},
		{"nothing is no image", nil, "", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ, w, h, ok := ImageInfo(tt.head)
			if typ != tt.typ || w != tt.w || h != tt.h || ok != tt.recognised {
				t.Errorf("ImageInfo = %q %d×%d %v, want %q %d×%d %v", typ, w, h, ok, tt.typ, tt.w, tt.h, tt.recognised)
			}
		})
	}
}

func TestImageInfoNeverPanicsOnTruncatedHeads(t *testing.T) {
	pngBytes := encoded(t, func(b *bytes.Buffer, m image.Image) error { return png.Encode(b, m) }, 3, 3)
	jpegBytes := encoded(t, func(b *bytes.Buffer, m image.Image) error { return jpeg.Encode(b, m, nil) }, 3, 3)
	samples := [][]byte{pngBytes, jpegBytes, riff("VP8X", make([]byte, 10)), riff("VP8L", make([]byte, 5)), riff("VP8 ", make([]byte, 10)),
		cat([]byte{0, 0, 1, 0}, le16(200)), cat([]byte("BM"), make([]byte, 30)), cat(be32(200), []byte("ftypavif"), []byte("ispe"))}
	for _, s := range samples {
		for n := range len(s) + 1 {
			ImageInfo(s[:n])
		}
	}
}

func FuzzImageInfo(f *testing.F) {
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	f.Add([]byte{0xff, 0xd8, 0xff, 0xe0, 0, 2})
	f.Add([]byte(`<svg viewBox="0 0 1 1">`))
	f.Add(riff("VP8X", make([]byte, 10)))
	f.Fuzz(func(t *testing.T, b []byte) {
		typ, w, h, ok := ImageInfo(b)
		if !ok && (typ != "" || w != 0 || h != 0) {
			t.Fatalf("unrecognised bytes gave %q %d×%d", typ, w, h)
		}
		if w < 0 || h < 0 {
			t.Fatalf("negative size %d×%d", w, h)
		}
	})
}

func TestNegligible(t *testing.T) {
	for _, c := range []struct {
		w, h int
		want bool
	}{{1, 1, true}, {2, 2, true}, {1, 3, false}, {0, 0, false}, {16, 16, false}} {
		if got := Negligible(c.w, c.h); got != c.want {
			t.Errorf("Negligible(%d, %d) = %v, want %v", c.w, c.h, got, c.want)
		}
	}
}
