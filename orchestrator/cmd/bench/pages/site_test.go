package pages

import (
	"bytes"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func get(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func TestSyntheticPages(t *testing.T) {
	site, err := Start(filepath.Join(t.TempDir(), "absent"))
	if err != nil {
		t.Fatalf("a missing corpus folder must not stop the site: %v", err)
	}
	t.Cleanup(func() { site.Close() })

	if n := len(site.Pages()); n != len(synthetic) {
		t.Fatalf("%d pages without a corpus, want the %d synthetic ones", n, len(synthetic))
	}
	tests := []struct {
		path     string
		contains []string
		lacks    []string
		minBytes int
	}{
		{"/article", []string{`"@type":"NewsArticle"`, `og:image`, `<link rel="canonical"`, `<title>`}, nil, 8 << 10},
		{"/blog", []string{`name="author"`, "<pre><code>", `class="comment"`}, nil, 100 << 10},
		{"/gallery", []string{`/img/photo/119.png`, `og:title`}, nil, 4 << 10},
		{"/app", []string{`/static/app.js`, `id="root"`}, []string{"<title>", "og:title"}, 200},
	}
	for _, tt := range tests {
		t.Run("the "+strings.TrimPrefix(tt.path, "/")+" page is served as HTML with what makes it realistic", func(t *testing.T) {
			resp, body := get(t, site.Base()+tt.path+"?r=1")
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			for _, c := range tt.contains {
				if !bytes.Contains(body, []byte(c)) {
					t.Errorf("the page lacks %q", c)
				}
			}
			for _, c := range tt.lacks {
				if bytes.Contains(body, []byte(c)) {
					t.Errorf("the page has %q, which it must only get from its script", c)
				}
			}
			if len(body) < tt.minBytes {
				t.Errorf("the page has %d bytes, want at least %d", len(body), tt.minBytes)
			}
		})
	}

	t.Run("the gallery has 120 images, each at its own address", func(t *testing.T) {
		_, body := get(t, site.Base()+"/gallery")
		if n := strings.Count(string(body), "<img "); n != 120 {
			t.Errorf("%d images", n)
		}
	})
	for _, img := range []struct{ path, format string }{{"/img/hero.jpg", "jpeg"}, {"/img/photo/57.png", "png"}, {"/favicon.png", "png"}} {
		t.Run("the image "+img.path+" decodes as "+img.format, func(t *testing.T) {
			resp, body := get(t, site.Base()+img.path)
			if resp.StatusCode != 200 {
				t.Fatalf("HTTP %d", resp.StatusCode)
			}
			_, format, err := image.DecodeConfig(bytes.NewReader(body))
			if err != nil || format != img.format {
				t.Errorf("decoded as %q: %v", format, err)
			}
		})
	}
	t.Run("a photo number that is not a number is not found", func(t *testing.T) {
		if resp, _ := get(t, site.Base()+"/img/photo/x.png"); resp.StatusCode != 404 {
			t.Errorf("HTTP %d", resp.StatusCode)
		}
	})
	t.Run("the app's data API answers late, after the page's own load", func(t *testing.T) {
		start := time.Now()
		resp, body := get(t, site.Base()+"/api/story.json")
		if took := time.Since(start); took < apiDelay {
			t.Errorf("answered in %s, before its delay of %s", took, apiDelay)
		}
		if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"title"`)) {
			t.Errorf("HTTP %d: %s", resp.StatusCode, body)
		}
	})
	t.Run("the app's scripts are large bundles", func(t *testing.T) {
		for _, p := range []string{"/static/vendor.js", "/static/app.js"} {
			if _, body := get(t, site.Base()+p); len(body) < 100<<10 {
				t.Errorf("%s has %d bytes", p, len(body))
			}
		}
	})
	t.Run("URLs differ per request number and keep the page's path", func(t *testing.T) {
		p := site.Pages()[0]
		a, b := site.URL(p, 1), site.URL(p, 2)
		if a == b || !strings.HasPrefix(a, site.Base()+p.Path+"?") {
			t.Errorf("URL = %s and %s", a, b)
		}
	})
}

func TestCorpusPages(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"beta":  "<html><title>Beta</title></html>",
		"alpha": "<html><title>Alpha</title></html>",
	} {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "page.html"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "no-page"), 0o755); err != nil {
		t.Fatal(err)
	}
	site, err := Start(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })

	var corpus []Page
	for _, p := range site.Pages() {
		if p.Corpus {
			corpus = append(corpus, p)
		}
	}
	t.Run("cases with a page are served after the synthetic pages, by name", func(t *testing.T) {
		if len(corpus) != 2 || corpus[0].Name != "alpha" || corpus[1].Name != "beta" {
			t.Fatalf("corpus pages = %+v", corpus)
		}
		if site.Pages()[0].Corpus {
			t.Error("a corpus page comes before the synthetic ones")
		}
	})
	t.Run("a corpus page is served as it is stored, kept on loopback by its policy", func(t *testing.T) {
		resp, body := get(t, site.URL(corpus[0], 3))
		if resp.StatusCode != 200 || string(body) != "<html><title>Alpha</title></html>" {
			t.Errorf("HTTP %d: %s", resp.StatusCode, body)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'self'") {
			t.Errorf("Content-Security-Policy = %q", csp)
		}
	})
	t.Run("a corpus folder that is a file is an error", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if s, err := Start(f); err == nil {
			s.Close()
			t.Error("want an error for a corpus path that is not a folder")
		}
	})
}
