package lazy_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// longPage is three screens of an article, with script for its end.
func longPage(script string) string {
	return `<!doctype html><html lang="en"><head><title>The ferry timetable</title></head><body>
<h1>The ferry timetable</h1><p style="min-height: 2400px">` + strings.Repeat("The morning ferry leaves at seven and the evening ferry at six. ", 20) +
		`</p><p>The last line of the timetable.</p>` + script + `</body></html>`
}

// The end of the scroll-through gives a page a while to react to the last
// scroll. A page hears a scroll through a listener for scroll events on
// its window or its document, whoever added it (a frame of the page, a
// handler written as an attribute, one that listens for every element's
// scrolling); one without such a listener hears it only through its
// intersection observers, which have been told by the end of each step,
// and is given a shorter while. Each kind of page still answers whole.
func TestTheScrollThroughWaitsLongerForAPageThatHearsTheScroll(t *testing.T) {
	t.Parallel()
	logs := &e2e.LogBuffer{}
	app := e2e.StartAppLogging(t, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), e2e.DefaultPlans, nil)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/observer": e2e.HTML(infinitePage),
		"/items":    items,
		"/plain": e2e.HTML(longPage(`<div id="box" style="height: 50px; overflow: auto"><div style="height: 500px"></div></div>
<script>
addEventListener("resize", () => {});
document.addEventListener("click", () => {});
// An element's own scrolling is not the document's.
document.getElementById("box").addEventListener("scroll", () => {});
new IntersectionObserver(() => {}).observe(document.querySelector("p"));
</script>`)),
		"/window":    e2e.HTML(debouncedList),
		"/document":  e2e.HTML(longPage(`<script>document.addEventListener("scroll", () => {}, {passive: true});</script>`)),
		"/capture":   e2e.HTML(longPage(`<script>addEventListener("scroll", () => {}, true);</script>`)),
		"/scrollend": e2e.HTML(longPage(`<script>document.onscrollend = () => {};</script>`)),
		"/attribute": e2e.HTML(strings.Replace(longPage(""), "<body>", `<body onscroll="document.title = document.title">`, 1)),
		"/framed":    e2e.HTML(longPage(`<iframe srcdoc="<script>parent.addEventListener('scroll', () => {});</script>"></iframe>`)),
	})
	line := regexp.MustCompile(`msg="scrolled through the page before the capture".* hears_scroll=(\w+) tail=(\S+)`)
	for _, c := range []struct {
		path, want string
		hears      bool
	}{
		{"/observer", "Item number 30 of the list", false},
		{"/plain", "The last line of the timetable", false},
		{"/window", "Item number 30 of the list", true},
		{"/document", "The last line of the timetable", true},
		{"/capture", "The last line of the timetable", true},
		{"/scrollend", "The last line of the timetable", true},
		{"/attribute", "The last line of the timetable", true},
		{"/framed", "The last line of the timetable", true},
	} {
		before := len(line.FindAllStringSubmatch(logs.String(), -1))
		a := app.Get(ps.URL+c.path, "data.content.attr=markdown&meta=false&prerender=true&force=true"+listTime)
		if md, _ := a.Field("content").(string); a.HTTP != 200 || !strings.Contains(md, c.want) {
			t.Errorf("%s: the Markdown lacks %q: %d %.300s", c.path, c.want, a.HTTP, a.Raw)
			continue
		}
		got := line.FindAllStringSubmatch(logs.String(), -1)
		if len(got) != before+1 {
			t.Errorf("%s: %d scroll-throughs logged; want one", c.path, len(got)-before)
			continue
		}
		hears, tail := got[before][1] == "true", got[before][2]
		wantTail := map[bool]string{true: "250ms", false: "100ms"}[c.hears]
		if hears != c.hears || tail != wantTail {
			t.Errorf("%s: the scroll-through took the page to hear the scroll: %v, with a tail of %s; want %v and %s", c.path, hears, tail, c.hears, wantTail)
		}
	}
}

// sectionsPage opens on a hero as tall as the viewport, over 40 sections
// of 500 pixels whose text the page writes as each comes into view (an
// intersection observer, as lazy content is loaded), and records in
// data-h the viewport's height each time the window is resized.
var sectionsPage = func() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><title>Sections</title>
<style>body { margin: 0; font: 16px sans-serif } section { height: 500px }</style></head><body>
<div id="hero" style="height: 100vh; background: rgb(0, 90, 200)">The hero</div><main>`)
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, `<section data-n="%d"></section>`, i)
	}
	b.WriteString(`</main><script>
document.body.dataset.h = innerHeight;
addEventListener("resize", () => { document.body.dataset.h = innerHeight; });
const seen = new IntersectionObserver((es) => {
  for (const e of es) {
    if (!e.isIntersecting) continue;
    const p = document.createElement("p");
    p.textContent = "Section " + e.target.dataset.n + " was seen.";
    e.target.append(p);
    seen.unobserve(e.target);
  }
});
document.querySelectorAll("section").forEach((s) => seen.observe(s));
</script></body></html>`)
	return b.String()
}()

// The scroll-through makes the viewport taller, so that it takes fewer
// steps, each waiting for the page to draw, to cover the same length. The
// page sees what a reader scrolling through it would, down to the same
// bound (20 of the caller's viewports), and the caller's viewport is back
// for what is read and captured: the page's own record of its height, a
// hero sized to the viewport in a full-page screenshot.
func TestTheScrollThroughCoversTheSameLengthInFewerSteps(t *testing.T) {
	t.Parallel()
	logs := &e2e.LogBuffer{}
	app := e2e.StartAppLogging(t, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), e2e.DefaultPlans, nil)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/sections": e2e.HTML(sectionsPage)})
	steps := regexp.MustCompile(`msg="scrolled through the page before the capture".* steps=(\d+) height=(\d+)`)

	a := app.Get(ps.URL+"/sections", "data.content.attr=markdown&data.h.selector=body&data.h.attr=data-h&meta=false&prerender=true&force=true")
	md, _ := a.Field("content").(string)
	if a.HTTP != 200 {
		t.Fatalf("the page answered %d: %.300s", a.HTTP, a.Raw)
	}
	// The hero and 31 sections fill 20 viewports of 800 pixels; the
	// 32nd section starts at the bound.
	for _, n := range []int{1, 16, 31} {
		if want := fmt.Sprintf("Section %d was seen.", n); !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q, which came into view on the way down", want)
		}
	}
	if strings.Contains(md, "Section 34 was seen.") {
		t.Errorf("the scroll went past its bound of 20 viewports: %q", md[max(0, len(md)-200):])
	}
	if h := a.Field("h"); h != "800" {
		t.Errorf("the page's viewport was %v tall when it was read; want the caller's 800", h)
	}
	got := steps.FindAllStringSubmatch(logs.String(), -1)
	if len(got) != 1 {
		t.Fatalf("%d scroll-throughs logged; want one", len(got))
	}
	// One step a viewport would be 19; a viewport of 3,200 pixels takes 4.
	if n, _ := strconv.Atoi(got[0][1]); n < 1 || n > 5 {
		t.Errorf("the scroll-through took %s steps; want at most 5 in a taller viewport", got[0][1])
	}

	img := decodePNG(t, app.Get(ps.URL+"/sections", "screenshot.fullPage=true&meta=false&embed=screenshot.url&force=true"))
	hero := 0
	for y := 0; y < img.Bounds().Dy(); y++ {
		r, g, b, _ := img.At(640, y).RGBA()
		if r>>8 > 10 || g>>8 < 80 || g>>8 > 100 || b>>8 < 190 {
			break
		}
		hero++
	}
	if hero != 800 {
		t.Errorf("the hero is %d pixels tall in the full-page screenshot; want the caller's viewport, 800", hero)
	}
}
