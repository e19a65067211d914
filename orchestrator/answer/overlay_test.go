package answer

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/orchestrator/render"
)

// fixedSource answers every URL with one body or one error.
type fixedSource struct {
	body        io.Reader
	contentType string
	err         error
}

func (s fixedSource) Open(ctx context.Context, raw string) (io.ReadCloser, func(string) string, error) {
	if s.err != nil {
		return nil, nil, s.err
	}
	return io.NopCloser(s.body), func(name string) string {
		if name == "content-type" {
			return s.contentType
		}
		return ""
	}, nil
}

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pngClaiming is a valid png header that claims w×h pixels: a
// decompression bomb's first bytes.
func pngClaiming(t *testing.T, w, h uint32) []byte {
	t.Helper()
	b := encodePNG(t, image.NewGray(image.Rect(0, 0, 1, 1)))
	// The IHDR chunk's data starts after the 8-byte signature, its length
	// and its type; its CRC covers the type and the data.
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

func TestFetchBackgroundDecodesWithinItsBounds(t *testing.T) {
	const raw = "https://example.com/bg.png"
	ok := image.NewNRGBA(image.Rect(0, 0, 30, 20))
	ok.SetNRGBA(3, 4, color.NRGBA{R: 200, A: 255})
	img, err := FetchBackground(context.Background(), fixedSource{body: bytes.NewReader(encodePNG(t, ok))}, raw)
	if err != nil {
		t.Fatalf("a small png was refused: %v", err)
	}
	if img.Bounds().Size() != image.Pt(30, 20) {
		t.Fatalf("decoded %v, want 30x20", img.Bounds())
	}
	if r, _, _, _ := img.At(3, 4).RGBA(); r>>8 != 200 {
		t.Errorf("pixel 3,4 is %v", img.At(3, 4))
	}

	cases := []struct {
		name string
		src  fixedSource
		msg  string
	}{
		{"a header claiming a side past the limit is refused before decoding",
			fixedSource{body: bytes.NewReader(pngClaiming(t, 20000, 10))}, "20000×10 pixels"},
		{"a header claiming too many pixels is refused before decoding",
			fixedSource{body: bytes.NewReader(pngClaiming(t, 5000, 5000))}, "5000×5000 pixels"},
		{"a body past the byte limit is refused",
			fixedSource{body: io.LimitReader(zeros{}, maxBackgroundBytes+10)}, "larger than 16 MB"},
		{"a page instead of an image is refused",
			fixedSource{body: strings.NewReader("<!doctype html><title>x</title>"), contentType: "text/html"}, "not a PNG, JPEG, GIF or WebP image"},
		{"a truncated image is refused",
			fixedSource{body: bytes.NewReader(encodePNG(t, ok)[:60])}, "could not be decoded"},
		{"a fetch that fails is refused with its reason",
			fixedSource{err: errors.New("fetching answered HTTP 404")}, "HTTP 404"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FetchBackground(context.Background(), tc.src, raw)
			var e *apierr.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an API error", err)
			}
			if e.Code != apierr.CodeInvalidQuery || e.Param != backgroundParam {
				t.Errorf("got %s naming %q, want EINVALQUERY naming %s", e.Code, e.Param, backgroundParam)
			}
			if !strings.Contains(e.Message, tc.msg) || !strings.Contains(e.Message, "`screenshot.overlay.background`") {
				t.Errorf("message %q does not contain %q and the parameter", e.Message, tc.msg)
			}
		})
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func TestFetchBackgroundKeepsTheGuardsWordAndTheRequestsDeadline(t *testing.T) {
	const raw = "http://10.0.0.1/bg.png"
	_, err := FetchBackground(context.Background(), fixedSource{err: &render.Error{Kind: render.Forbidden, URL: raw}}, raw)
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != apierr.CodeForbiddenURL || e.Param != backgroundParam || e.Status() != 400 {
		t.Fatalf("a refusal by the egress guard gave %v, want EFORBIDDENURL naming %s", err, backgroundParam)
	}
	if !strings.Contains(e.Message, "public addresses only") {
		t.Errorf("message %q", e.Message)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = FetchBackground(ctx, fixedSource{err: context.Canceled}, raw)
	if !errors.Is(err, context.Canceled) || errors.As(err, &e) {
		t.Errorf("a request that went away gave %v, want its context's error", err)
	}
}

func TestComposeOverlayEncodesTheRequestedType(t *testing.T) {
	shot := encodePNG(t, image.NewNRGBA(image.Rect(0, 0, 320, 200)))
	for _, tc := range []struct {
		typ     string
		quality int
		decode  func(io.Reader) (image.Image, error)
	}{{"png", 0, png.Decode}, {"jpeg", 80, jpeg.Decode}, {"jpeg", 0, jpeg.Decode}} {
		t.Run(tc.typ, func(t *testing.T) {
			o := &query.ScreenshotOptions{Type: tc.typ, Quality: tc.quality, Overlay: query.Overlay{Browser: "dark", Background: "linear-gradient(90deg, #000, #fff)"}}
			data, w, h, err := composeOverlay(t.Context(), o, shot, nil)
			if err != nil {
				t.Fatal(err)
			}
			img, err := tc.decode(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("the result is not a %s: %v", tc.typ, err)
			}
			if img.Bounds().Dx() != w || img.Bounds().Dy() != h || w != 352 || h <= 240 {
				t.Errorf("decoded %v, reported %dx%d; want 352 wide and taller than 240", img.Bounds(), w, h)
			}
		})
	}
}

// BenchmarkComposeOverlay is the whole cost an overlay adds to a desktop
// viewport's screenshot: decoding the capture, composing, encoding.
func BenchmarkComposeOverlay(b *testing.B) {
	img := image.NewNRGBA(image.Rect(0, 0, 1280, 800))
	for y := range 800 {
		for x := range 1280 {
			img.SetNRGBA(x, y, color.NRGBA{R: uint8(x / 8), G: uint8(y / 8), B: 200, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		b.Fatal(err)
	}
	for _, typ := range []string{"png", "jpeg"} {
		o := &query.ScreenshotOptions{Type: typ, Quality: 80, Overlay: query.Overlay{Browser: "dark", Background: "linear-gradient(225deg, #ff057c 0%, #8d0b93 50%, #321575 100%)"}}
		b.Run(typ, func(b *testing.B) {
			for b.Loop() {
				if _, _, _, err := composeOverlay(b.Context(), o, buf.Bytes(), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestFetchBackgroundLeavesGlimpsesOwnFailureToTheService(t *testing.T) {
	const raw = "http://site.test/bg.png"
	egress := fmt.Errorf("%w: no healthy sidecar to fetch through", render.ErrEgress)
	_, err := FetchBackground(context.Background(), fixedSource{err: egress}, raw)
	if e := apierr.From(err); e == nil || e.Status() < 500 || !errors.Is(err, render.ErrEgress) {
		t.Errorf("a fetch that never left glimpse gave %v, want the service's error (5xx), not one that tells the caller to change the URL", err)
	}
}
