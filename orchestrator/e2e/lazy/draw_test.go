package lazy_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// slowDrawPage holds five parts, each put in its place by an
// intersection observer when its slot comes into view, far enough apart
// that a slot is in view for one step of the scroll-through. Behind
// them, layers whose blur the compositor animates take hundreds of
// milliseconds to draw each frame while the page's main thread is free:
// its timers run and its rendering is updated, and its observers told,
// only when a frame is drawn, as on a machine busy with other work.
func slowDrawPage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><title>Parts</title><style>
body { margin: 0; font: 16px sans-serif } section { height: 1600px }
#paint { position: fixed; inset: 0; pointer-events: none; z-index: -1 }
#paint div { position: absolute; inset: 0; background: radial-gradient(#f00, #00f); opacity: .1; will-change: filter; animation: blur 1s infinite alternate }
@keyframes blur { from { filter: blur(40px) } to { filter: blur(90px) } }
</style></head><body><div id="paint"><div></div><div></div></div>
<main><h1>Parts</h1><p>`)
	b.WriteString(strings.Repeat("The parts below come into view one at a time. ", 8))
	b.WriteString(`</p>`)
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&b, `<section><div class="slot" data-n="%d" style="height: 40px"></div></section>`, i)
	}
	b.WriteString(`</main><script>
const io = new IntersectionObserver((es) => {
  for (const e of es) {
    if (!e.isIntersecting) continue;
    io.unobserve(e.target);
    const p = document.createElement("p");
    p.textContent = "Part number " + e.target.dataset.n + " arrived as it came into view.";
    e.target.replaceWith(p);
  }
});
document.querySelectorAll(".slot").forEach((el) => io.observe(el));
</script></body></html>`)
	return b.String()
}

// TestWhatComesIntoViewOnAPageSlowToDrawIsInTheAnswer: the scroll-through
// waits, after each scroll, for the page to draw, rather than a fixed
// moment that a slow frame outlasts; scrolled on before it, a slot is
// out of view by the time the page's observer is told, and its part
// never comes.
func TestWhatComesIntoViewOnAPageSlowToDrawIsInTheAnswer(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/parts": e2e.HTML(slowDrawPage())})
	a := app.Get(ps.URL+"/parts", "data.content.selector=main&data.content.attr=markdown&meta=false&prerender=true&force=true"+listTime)
	md, _ := a.Field("content").(string)
	var missing []string
	for i := 1; i <= 5; i++ {
		if !strings.Contains(md, fmt.Sprintf("Part number %d arrived", i)) {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if a.HTTP != 200 || len(missing) > 0 {
		t.Errorf("the Markdown lacks parts %s: %d %.600s", strings.Join(missing, ", "), a.HTTP, md)
	}
}
