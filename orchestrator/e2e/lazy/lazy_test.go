package lazy_test

import (
	"fmt"
	"image/color"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// lazyColours are the colours of the lazy page's images, one per way a
// page defers an image.
var lazyColours = []struct {
	name string
	c    color.RGBA
}{
	{"loading=lazy", color.RGBA{230, 30, 30, 255}},
	{"data-src swapped on intersection", color.RGBA{30, 170, 60, 255}},
	{"inserted on intersection", color.RGBA{40, 60, 220, 255}},
	{"loading=lazy far below", color.RGBA{250, 150, 0, 255}},
}

// lazyPage spaces four images a screen or more apart, each deferred as
// pages defer them: the browser's loading=lazy, a data-src that an
// IntersectionObserver swaps in, and an image an observer inserts.
const lazyPage = `<!doctype html><html lang="en"><head><title>A long page of pictures</title>
<style>body { margin: 0; font: 16px sans-serif; background: #fff } section { height: 1500px; padding: 20px }
img { display: block; width: 400px; height: 300px }</style></head><body>
<section><h1>A long page of pictures</h1><p>Scroll down to see them.</p></section>
<section><img loading="lazy" src="/img/0.png" alt="first"></section>
<section><img class="lazy" alt="second" data-src="/img/1.png" src="data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw=="></section>
<section><div class="slot" data-img="/img/2.png" style="width:400px;height:300px"></div></section>
<section style="height: 4000px"></section>
<section><img loading="lazy" src="/img/3.png" alt="last"></section>
<script>
const io = new IntersectionObserver((entries) => {
  for (const e of entries) {
    if (!e.isIntersecting) continue;
    const el = e.target;
    io.unobserve(el);
    if (el.dataset.src) { el.src = el.dataset.src; continue; }
    const img = new Image(400, 300);
    img.src = el.dataset.img;
    el.replaceWith(img);
  }
});
document.querySelectorAll("img.lazy, .slot").forEach((el) => io.observe(el));
</script></body></html>`

func lazyServer(t *testing.T) *e2e.PageServer {
	routes := map[string]http.HandlerFunc{"/lazy": e2e.HTML(lazyPage)}
	for i, lc := range lazyColours {
		b := solidPNG(t, 400, 300, lc.c)
		serve := servePNG(b)
		routes[fmt.Sprintf("/img/%d.png", i)] = func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(150 * time.Millisecond) // an image on a real network
			serve(w, r)
		}
	}
	return e2e.NewPageServer(t, routes)
}

func TestLazyImagesAreInTheCapture(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	ps := lazyServer(t)

	t.Run("a full-page screenshot shows every lazy image", func(t *testing.T) {
		img := decodePNG(t, app.Get(ps.URL+"/lazy", "screenshot.fullPage=true&meta=false&embed=screenshot.url&force=true"))
		for _, lc := range lazyColours {
			if n := countColour(img, lc.c, 12); n < 400*300/2 {
				t.Errorf("the image deferred by %s is missing from the screenshot (%d of its pixels)", lc.name, n)
			}
		}
		if h := img.Bounds().Dy(); h < 10000 {
			t.Errorf("the screenshot is %d pixels tall, not the whole page", h)
		}
	})

	t.Run("a PDF shows every lazy image", func(t *testing.T) {
		pages := pdfPages(t, app.Get(ps.URL+"/lazy", "pdf=true&meta=false&embed=pdf.url&force=true"))
		for _, lc := range lazyColours {
			// At 36 dpi and pdf.scale 0.6 an image is about 90×67 pixels.
			if n := colourInPages(pages, lc.c, 16); n < 2000 {
				t.Errorf("the image deferred by %s is missing from the PDF (%d of its pixels over %d pages)", lc.name, n, len(pages))
			}
		}
	})

	t.Run("with a wait of the caller's, the page is captured as it loaded", func(t *testing.T) {
		// The control: the page really defers its images, so the two
		// tests above fail without the scroll.
		img := decodePNG(t, app.Get(ps.URL+"/lazy", "screenshot.fullPage=true&meta=false&embed=screenshot.url&force=true&waitUntil=load"))
		var missing []string
		for _, lc := range lazyColours {
			if countColour(img, lc.c, 12) < 400*300/2 {
				missing = append(missing, lc.name)
			}
		}
		if len(missing) == 0 {
			t.Errorf("every image shows without the scroll: the page does not defer them")
		}
		t.Logf("without the scroll, missing: %s", strings.Join(missing, ", "))
	})
}
