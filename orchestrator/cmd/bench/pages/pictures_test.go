package pages

import (
	"bytes"
	"image"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/internal/testtool"
)

func TestWithPictures(t *testing.T) {
	tests := []struct {
		name, in, want string
		n              int
	}{
		{"a picture without a width gets the default stand-in",
			`<p>a</p><img src="https://cdn.example/a.jpg" alt="x"><p>b</p>`,
			`<p>a</p><img src="/picture/640/1.jpg" alt="x"><p>b</p>`, 1},
		{"a declared width picks the narrowest stand-in that covers it",
			`<img width="100" src="//cdn.example/a.png">`, `<img width="100" src="/picture/160/1.jpg">`, 1},
		{"a width beyond the widest gets the widest",
			`<img width="4000px" src="/a.png">`, `<img width="4000px" src="/picture/1200/1.jpg">`, 1},
		{"each srcset candidate gets the stand-in of its own width",
			`<img src="a.jpg" srcset="a-300.jpg 300w, a-1024.jpg 1024w">`,
			`<img src="/picture/640/1.jpg" srcset="/picture/320/2.jpg 300w, /picture/1200/3.jpg 1024w">`, 3},
		{"picture sources too, but not a video's",
			`<picture><source srcset="b.webp 2x" type="image/webp"><source src="c.mp4" type="video/mp4"></picture><video><source src="d.webm"></video>`,
			`<picture><source srcset="/picture/640/1.jpg 2x" type="image/webp"><source src="c.mp4" type="video/mp4"></picture><video><source src="d.webm"></video>`, 1},
		{"a video's poster and an icon",
			`<video poster="p.jpg"></video><link rel="shortcut icon" href="/favicon.ico">`,
			`<video poster="/picture/640/1.jpg"></video><link rel="shortcut icon" href="/picture/64/2.jpg">`, 2},
		{"a preloaded picture, not a preloaded script or a stylesheet",
			`<link rel="preload" as="image" href="h.jpg"><link rel="preload" as="script" href="s.js"><link rel="stylesheet" href="s.css">`,
			`<link rel="preload" as="image" href="/picture/640/1.jpg"><link rel="preload" as="script" href="s.js"><link rel="stylesheet" href="s.css">`, 1},
		{"data: pictures cost no fetch and stay",
			`<img src="data:image/gif;base64,R0lGOD"><img srcset="data:image/png;base64,AA, x.png 2x">`,
			`<img src="data:image/gif;base64,R0lGOD"><img srcset="data:image/png;base64,AA, x.png 2x">`, 0},
		{"markup inside a script or a comment is not a tag",
			`<script>var s = '<img src="https://x/y.jpg">';</script><!-- <img src="z.jpg"> -->`,
			`<script>var s = '<img src="https://x/y.jpg">';</script><!-- <img src="z.jpg"> -->`, 0},
		{"a page that ends inside a tag keeps its end",
			`<p>a</p><img src="x.jpg">tail <img src="y.jpg`,
			`<p>a</p><img src="/picture/640/1.jpg">tail <img src="y.jpg`, 1},
		{"everything else is kept byte for byte",
			"<!DOCTYPE html>\n<HTML lang=en><Meta Name=x CONTENT='a &amp; b'><body class=\"k\">caf\u00e9 &nbsp;</body>",
			"<!DOCTYPE html>\n<HTML lang=en><Meta Name=x CONTENT='a &amp; b'><body class=\"k\">caf\u00e9 &nbsp;</body>", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := withPictures([]byte(tt.in))
			if string(got) != tt.want || n != tt.n {
				t.Errorf("got %d pictures in\n %s\nwant %d in\n %s", n, got, tt.n, tt.want)
			}
		})
	}
}

func TestStandInPicturesAreServed(t *testing.T) {
	testtool.WithoutRace(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "news"), 0o755); err != nil {
		t.Fatal(err)
	}
	page := `<html><head><title>News</title></head><body><img width="300" src="https://cdn.example/lead.jpg"></body></html>`
	if err := os.WriteFile(filepath.Join(dir, "news", "page.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	site, err := Start(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })

	_, body := get(t, site.Base()+"/corpus/news/?r=1")
	if !bytes.Contains(body, []byte(`src="/picture/320/1.jpg"`)) || bytes.Contains(body, []byte("cdn.example")) {
		t.Fatalf("the real page's picture is not the page server's: %s", body)
	}
	resp, pic := get(t, site.Base()+"/picture/320/1.jpg")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("the stand-in: HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(pic))
	if err != nil || format != "jpeg" || cfg.Width != 320 || cfg.Height != 180 {
		t.Fatalf("the stand-in is %s %dx%d (%v), want a 320x180 JPEG", format, cfg.Width, cfg.Height, err)
	}
	for _, path := range []string{"/picture/321/1.jpg", "/picture/x/1.jpg"} {
		if resp, _ := get(t, site.Base()+path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: HTTP %d, want 404 for a width no stand-in has", path, resp.StatusCode)
		}
	}
	if !strings.Contains(corpusPolicy, "'self'") {
		t.Errorf("the corpus policy %q must let a page load the page server's pictures", corpusPolicy)
	}
}
