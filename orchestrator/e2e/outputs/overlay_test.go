package outputs_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
	"github.com/glimpse/glimpse/orchestrator/overlay"
)

// overlayPage fills the viewport with blue and has a red square near its
// top-left corner, so the capture's place and orientation in the
// composition can be told.
const overlayPage = `<!doctype html><html lang="en"><head><title>overlay</title>
<style>html,body{margin:0;height:100%;background:#3366cc}#sq{position:absolute;left:20px;top:20px;width:40px;height:40px;background:#f00}</style>
</head><body><div id="sq"></div></body></html>`

// overlayViewport is the capture's size in every overlay case.
const overlayViewport = "viewport.width=640&viewport.height=400&viewport.deviceScaleFactor=1"

// halvesPNG is a w×h png, red on the left half and green on the right.
func halvesPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.NRGBA{R: 255, A: 255}
			if x >= w/2 {
				c = color.NRGBA{G: 255, A: 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestScreenshotOverlays(t *testing.T) {
	t.Parallel()
	// Only 127.0.0.1 is allowed, so another loopback address stands in
	// for a private one that must never be fetched.
	app := e2e.StartApp(t, func(c *orchestrator.Config) {
		c.AllowTargets = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		c.SidecarConcurrency = 2
	})
	bg := halvesPNG(t, 64, 64)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/page": e2e.HTML(overlayPage),
		"/bg.png": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("content-type", "image/png")
			_, _ = w.Write(bg)
		},
		"/not-an-image": e2e.HTML("<!doctype html><title>no</title>"),
	})
	env := &shotEnv{app: app, ps: ps}
	page := "/page"

	// checkWindow checks the parts every framed composition shares.
	checkWindow := func(t *testing.T, img image.Image, l overlay.Layout, tol int) {
		t.Helper()
		if img.Bounds().Size() != l.Canvas.Size() {
			t.Fatalf("the image is %v, want %v: the 640x400 capture with its window and margins", img.Bounds().Size(), l.Canvas.Size())
		}
		if c := pixel(img, l.Shot.Min.X+40, l.Shot.Min.Y+40); !near(c, 255, 0, 0, 255, tol) {
			t.Errorf("the page's red square is not where the capture goes: %v", c)
		}
		if c := pixel(img, l.Shot.Min.X+320, l.Shot.Min.Y+300); !near(c, 0x33, 0x66, 0xcc, 255, tol) {
			t.Errorf("the page's blue is not inside the window: %v", c)
		}
	}

	t.Run("a dark window on a hex colour, in png", func(t *testing.T) {
		_, obj := env.shot(t, page, overlayViewport+"&meta=false&screenshot.overlay.browser=dark&screenshot.overlay.background=%23c1c1c1")
		img, ct, _ := storedShot(t, obj)
		if ct != "image/png" || obj["type"] != "png" {
			t.Errorf("content type %q, type %v; want png", ct, obj["type"])
		}
		l := overlay.Plan(640, 400, overlay.Dark)
		checkWindow(t, img, l, 0)
		b := img.Bounds()
		for _, p := range []image.Point{{0, 0}, {b.Dx() - 1, 0}, {0, b.Dy() - 1}, {b.Dx() - 1, b.Dy() - 1}} {
			if c := pixel(img, p.X, p.Y); !near(c, 0xc1, 0xc1, 0xc1, 255, 0) {
				t.Errorf("the corner %v is %v, want the background #c1c1c1", p, c)
			}
		}
		bar := overlay.TitleBar(overlay.Dark)
		if c := pixel(img, l.Frame.Min.X+2*l.Bar, l.Frame.Min.Y+l.Bar/2); c != bar {
			t.Errorf("the title bar is %v, want the dark theme's %v", c, bar)
		}
	})

	t.Run("a light window alone, in jpeg, is flattened on white", func(t *testing.T) {
		_, obj := env.shot(t, page, overlayViewport+"&meta=false&screenshot.type=jpeg&screenshot.quality=95&screenshot.overlay.browser=light")
		img, ct, _ := storedShot(t, obj)
		if ct != "image/jpeg" {
			t.Errorf("content type %q, want image/jpeg", ct)
		}
		l := overlay.Plan(640, 400, overlay.Light)
		checkWindow(t, img, l, 12)
		if c := pixel(img, 2, 2); !near(c, 255, 255, 255, 255, 3) {
			t.Errorf("the corner is %v, want white: Microlink's transparent default has no alpha in jpeg", c)
		}
		bar := overlay.TitleBar(overlay.Light)
		if c := pixel(img, l.Frame.Min.X+2*l.Bar, l.Frame.Min.Y+l.Bar/2); !near(c, bar.R, bar.G, bar.B, 255, 6) {
			t.Errorf("the title bar is %v, want the light theme's %v", c, bar)
		}
	})

	t.Run("a gradient alone frames nothing and runs in its direction", func(t *testing.T) {
		bgq := url.QueryEscape("linear-gradient(90deg, #000 0%, #fff 100%)")
		_, obj := env.shot(t, page, overlayViewport+"&meta=false&screenshot.overlay.background="+bgq)
		img, _, _ := storedShot(t, obj)
		l := overlay.Plan(640, 400, "")
		if img.Bounds().Size() != l.Canvas.Size() {
			t.Fatalf("the image is %v, want %v", img.Bounds().Size(), l.Canvas.Size())
		}
		if c := pixel(img, l.Shot.Min.X+40, l.Shot.Min.Y+40); !near(c, 255, 0, 0, 255, 0) {
			t.Errorf("without a browser the capture starts at the margin, but the red square is not there: %v", c)
		}
		left, right := pixel(img, 0, l.Canvas.Dy()/2), pixel(img, l.Canvas.Dx()-1, l.Canvas.Dy()/2)
		if int(left.R)+20 > int(right.R) || left.R > 20 || right.R < 235 {
			t.Errorf("the gradient runs from %v on the left to %v on the right, want black to white", left, right)
		}
	})

	t.Run("an image background served on loopback covers the canvas", func(t *testing.T) {
		before := ps.Hits["/bg.png"].Load()
		_, obj := env.shot(t, page, overlayViewport+"&meta=false&screenshot.overlay.browser=dark&screenshot.overlay.background="+url.QueryEscape(ps.URL+"/bg.png"))
		img, _, _ := storedShot(t, obj)
		l := overlay.Plan(640, 400, overlay.Dark)
		checkWindow(t, img, l, 0)
		for _, y := range []int{0, l.Canvas.Dy() - 1} {
			if c := pixel(img, 0, y); !near(c, 255, 0, 0, 255, 8) {
				t.Errorf("the left edge at y=%d is %v, want the image's red", y, c)
			}
			if c := pixel(img, l.Canvas.Dx()-1, y); !near(c, 0, 255, 0, 255, 8) {
				t.Errorf("the right edge at y=%d is %v, want the image's green", y, c)
			}
		}
		if n := ps.Hits["/bg.png"].Load() - before; n != 1 {
			t.Errorf("the background was fetched %d times, want once", n)
		}
	})

	t.Run("a background at a refused address is a 400 and is never fetched", func(t *testing.T) {
		private, hits := privateImageServer(t, bg)
		pageHits := ps.Hits[page].Load()
		for _, raw := range []string{private.URL + "/bg.png", "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/bg.png"} {
			a := app.Get(ps.URL+page, overlayViewport+"&screenshot.overlay.browser=dark&screenshot.overlay.background="+url.QueryEscape(raw))
			if a.HTTP != 400 || a.Code != apierr.CodeForbiddenURL {
				t.Errorf("%s: HTTP %d %s %s, want 400 EFORBIDDENURL", raw, a.HTTP, a.Code, a.Message)
			}
			if !strings.Contains(a.Message, "`screenshot.overlay.background`") || !strings.Contains(a.Message, "public") {
				t.Errorf("%s: the message %q does not name the parameter and the rule", raw, a.Message)
			}
		}
		if n := hits.Load(); n != 0 {
			t.Errorf("the refused address was fetched %d times", n)
		}
		if n := ps.Hits[page].Load() - pageHits; n != 0 {
			t.Errorf("the page was rendered %d times for requests that could not be answered", n)
		}
	})

	t.Run("a background that redirects to a refused address is refused and never fetched there", func(t *testing.T) {
		private, hits := privateImageServer(t, bg)
		hop := e2e.NewPageServer(t, map[string]http.HandlerFunc{
			"/bg.png": func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, private.URL+"/bg.png", http.StatusFound)
			},
		})
		a := app.Get(ps.URL+page, overlayViewport+"&screenshot.overlay.background="+url.QueryEscape(hop.URL+"/bg.png"))
		if a.HTTP != 400 || a.Code != apierr.CodeForbiddenURL || !strings.Contains(a.Message, "`screenshot.overlay.background`") {
			t.Errorf("HTTP %d %s %s, want 400 EFORBIDDENURL naming the parameter", a.HTTP, a.Code, a.Message)
		}
		if hop.Hits["/bg.png"].Load() != 1 || hits.Load() != 0 {
			t.Errorf("the redirecting host was asked %d times and the refused one %d; want once and never",
				hop.Hits["/bg.png"].Load(), hits.Load())
		}
	})

	t.Run("the caller's forwarded headers never go with the background fetch", func(t *testing.T) {
		got := make(chan http.Header, 4)
		same := e2e.NewPageServer(t, map[string]http.HandlerFunc{
			"/page": e2e.HTML(overlayPage),
			"/bg.png": func(w http.ResponseWriter, r *http.Request) {
				got <- r.Header.Clone()
				w.Header().Set("content-type", "image/png")
				_, _ = w.Write(bg)
			},
		})
		// The background is on the target's own host, where forwarded
		// headers would go with the page's own requests.
		a := app.Get(same.URL+"/page", overlayViewport+"&meta=false&screenshot.overlay.background="+url.QueryEscape(same.URL+"/bg.png")+
			"&headers.authorization="+url.QueryEscape("Bearer s3cr3t")+"&headers.cookie="+url.QueryEscape("sid=s3cr3t"))
		if a.HTTP != 200 {
			t.Fatalf("HTTP %d %s %s", a.HTTP, a.Code, a.Message)
		}
		select {
		case h := <-got:
			if h.Get("authorization") != "" || h.Get("cookie") != "" {
				t.Errorf("the background fetch carried the caller's headers: %v", h)
			}
		default:
			t.Error("the background was never fetched")
		}
	})

	t.Run("a background URL that is not an image is a 400 naming the parameter", func(t *testing.T) {
		a := app.Get(ps.URL+page, overlayViewport+"&screenshot.overlay.background="+url.QueryEscape(ps.URL+"/not-an-image"))
		if a.HTTP != 400 || a.Code != apierr.CodeInvalidQuery || !strings.Contains(a.Message, "`screenshot.overlay.background`") {
			t.Errorf("HTTP %d %s %s, want 400 EINVALQUERY naming the parameter", a.HTTP, a.Code, a.Message)
		}
	})

	t.Run("bad overlay values are refused before any work", func(t *testing.T) {
		for _, q := range []string{
			"screenshot.overlay.browser=blue",
			"screenshot.overlay.background=" + url.QueryEscape("linear-gradient(sideways, red, blue)"),
			"screenshot.overlay.background=" + url.QueryEscape("ftp://example.com/bg.png"),
		} {
			a := app.Get(ps.URL+page, q)
			param, _, _ := strings.Cut(q, "=")
			if a.HTTP != 400 || a.Code != apierr.CodeInvalidQuery || !strings.Contains(a.Message, "`"+param+"`") {
				t.Errorf("%s: HTTP %d %s %s, want 400 EINVALQUERY naming %s", q, a.HTTP, a.Code, a.Message, param)
			}
		}
	})
}

func TestIgnoredOptionsAreNamedInAHeader(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/page": e2e.HTML(overlayPage)})
	const base = "meta=false&screenshot=true"

	cases := []struct {
		name, extra, status, ignored string
	}{
		{"a miss names what it did not apply", "&screenshot.codeScheme=atom-dark&screenshot.animated=true", "MISS", "screenshot.codeScheme,screenshot.animated"},
		{"a hit names them too", "&screenshot.codeScheme=atom-dark&screenshot.animated=true", "HIT", "screenshot.codeScheme,screenshot.animated"},
		{"the same answer without them says nothing", "", "HIT", ""},
		{"the caller's spelling is kept", "&screenshot.code_scheme=dracula&screenshot.animated.duration=5s", "HIT", "screenshot.code_scheme,screenshot.animated.duration"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := app.Get(ps.URL+"/page", base+tc.extra)
			if a.HTTP != 200 {
				t.Fatalf("HTTP %d %s %s", a.HTTP, a.Code, a.Message)
			}
			if got := a.Header.Get("x-cache-status"); got != tc.status {
				t.Errorf("x-cache-status %q, want %q", got, tc.status)
			}
			got, present := a.Header.Get("x-glimpse-ignored"), len(a.Header.Values("x-glimpse-ignored")) > 0
			if got != tc.ignored || present != (tc.ignored != "") {
				t.Errorf("x-glimpse-ignored %q (present %t), want %q", got, present, tc.ignored)
			}
		})
	}
	if n := ps.Hits["/page"].Load(); n != 1 {
		t.Errorf("the page was rendered %d times; ignored options must not split the cache", n)
	}

	t.Run("a refused value of an ignored option is a 400 naming it", func(t *testing.T) {
		a := app.Get(ps.URL+"/page", base+"&screenshot.animated.fps=120")
		if a.HTTP != 400 || a.Code != apierr.CodeInvalidQuery || !strings.Contains(a.Message, "`screenshot.animated.fps`") {
			t.Errorf("HTTP %d %s %s", a.HTTP, a.Code, a.Message)
		}
	})
}

// privateImageServer serves img on 127.0.0.2, a loopback address the
// tests' allow-list leaves out, standing in for a private one; it counts
// the requests that reach it.
func privateImageServer(t *testing.T, img []byte) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address here: %v", err)
	}
	hits := &atomic.Int64{}
	private := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("content-type", "image/png")
		_, _ = w.Write(img)
	}))
	private.Listener = ln
	private.Start()
	t.Cleanup(private.Close)
	return private, hits
}
