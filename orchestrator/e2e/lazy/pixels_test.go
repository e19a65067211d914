package lazy_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/internal/testtool"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// solidPNG is a w×h PNG of one colour.
func solidPNG(t testing.TB, w, h int, c color.RGBA) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// servePNG answers a PNG.
func servePNG(b []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "image/png")
		w.Header().Set("cache-control", "no-store")
		_, _ = w.Write(b)
	}
}

// countColour counts the pixels of img within tol of c on each channel.
func countColour(img image.Image, c color.RGBA, tol int) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(int(r>>8), int(c.R), tol) && near(int(g>>8), int(c.G), tol) && near(int(bl>>8), int(c.B), tol) {
				n++
			}
		}
	}
	return n
}

func near(a, b, tol int) bool { return a-b <= tol && b-a <= tol }

// decodePNG decodes a screenshot.
func decodePNG(t *testing.T, a e2e.Answer) image.Image {
	t.Helper()
	if a.HTTP != 200 || !strings.HasPrefix(a.Header.Get("content-type"), "image/png") {
		t.Fatalf("no screenshot: %d %s %.300s", a.HTTP, a.Header.Get("content-type"), a.Raw)
	}
	img, err := png.Decode(bytes.NewReader(a.Raw))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	return img
}

// pdfPages rasterises every page of a PDF with poppler's pdftoppm.
func pdfPages(t *testing.T, a e2e.Answer) []image.Image {
	t.Helper()
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		testtool.Missingf(t, "pdftoppm is not installed; the test reads the PDF's pixels with poppler-utils: run `make deps` or apt-get install poppler-utils")
	}
	if a.HTTP != 200 || !bytes.HasPrefix(a.Raw, []byte("%PDF-")) {
		t.Fatalf("no PDF: %d %s %.300s", a.HTTP, a.Header.Get("content-type"), a.Raw)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "doc.pdf")
	if err := os.WriteFile(in, a.Raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("pdftoppm", "-r", "36", "-png", in, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v: %s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "page*.png"))
	var pages []image.Image
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("pdftoppm wrote a page that is not a PNG: %v", err)
		}
		pages = append(pages, img)
	}
	if len(pages) == 0 {
		t.Fatal("pdftoppm wrote no page")
	}
	return pages
}

// colourInPages counts the pixels of c over every page.
func colourInPages(pages []image.Image, c color.RGBA, tol int) int {
	n := 0
	for _, p := range pages {
		n += countColour(p, c, tol)
	}
	return n
}
