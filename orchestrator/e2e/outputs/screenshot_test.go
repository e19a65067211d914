package outputs_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/webp"

	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
	"github.com/glimpse/glimpse/orchestrator/render"
	"github.com/glimpse/glimpse/storage"
)

// Pages for the screenshot tests. Each names its own geometry in its
// title, read by the browser that renders it, so the expectations do not
// depend on the default viewport.
const (
	// shotPlainPage has no background at all and one black square.
	shotPlainPage = `<!doctype html><html lang="en"><head><title>plain</title>
<style>html,body{margin:0}#sq{position:absolute;left:10px;top:10px;width:50px;height:50px;background:#000}</style>
</head><body><div id="sq"></div>
<script>document.title = "vw=" + innerWidth + " vh=" + innerHeight + " dpr=" + devicePixelRatio;</script></body></html>`

	// shotTallPage is 3000 px tall, with a gradient so lossy formats have
	// something to lose and a red band at its very bottom.
	shotTallPage = `<!doctype html><html lang="en"><head><title>tall</title>
<style>html,body{margin:0}#col{height:2980px;background:linear-gradient(#fff,#08f 40%,#f80 70%,#0a0)}#end{height:20px;background:#f00}</style>
</head><body><div id="col"></div><div id="end"></div>
<script>document.title = "sh=" + document.documentElement.scrollHeight + " dpr=" + devicePixelRatio;</script></body></html>`

	// shotEndlessPage is taller than any screenshot may be.
	shotEndlessPage = `<!doctype html><html lang="en"><head><title>endless</title>
<style>html,body{margin:0}#col{height:40000px}</style>
</head><body><div id="col"></div></body></html>`

	// shotLyingPage is as tall, and claims a device pixel ratio of 1
	// whatever the browser emulates.
	shotLyingPage = `<!doctype html><html lang="en"><head><title>lying</title>
<script>Object.defineProperty(window, "devicePixelRatio", {get: () => 1});</script>
<style>html,body{margin:0}#col{height:40000px;width:300px}</style>
</head><body><div id="col"></div></body></html>`

	// shotWidePage is 4000 px wide and as tall as a screenshot may be, in
	// noise that no png compresses: the largest image a page can ask for.
	shotWidePage = `<!doctype html><html lang="en"><head><title>wide</title>
<style>html,body{margin:0}canvas{display:block}</style></head><body><canvas id="c" width="4000" height="16384"></canvas>
<script>const c = document.getElementById("c").getContext("2d"), img = c.createImageData(4000, 2048);
const w = new Uint32Array(img.data.buffer); for (let i = 0; i < w.length; i++) w[i] = (Math.random() * 0xffffffff) | 0xff000000;
for (let y = 0; y < 16384; y += 2048) c.putImageData(img, 0, y);</script></body></html>`

	// shotElementPage has a red box far below the fold, at a fractional
	// left edge, and an element that is not displayed.
	shotElementPage = `<!doctype html><html lang="en"><head><title>element</title>
<style>html,body{margin:0;background:#fff}#box{position:absolute;left:37.4px;top:1500px;width:123px;height:45px;background:#f00}
#filler{height:2200px}#gone{display:none}</style>
</head><body><div id="filler"></div><div id="box"></div><div id="gone">hidden</div></body></html>`
)

// shotEnv is one app and the pages every screenshot case shares.
type shotEnv struct {
	app *e2e.App
	ps  *e2e.PageServer
}

// shot asks for a screenshot of path and fails unless it succeeds.
func (e *shotEnv) shot(t *testing.T, path, extra string) (e2e.Answer, map[string]any) {
	t.Helper()
	a := e.app.Get(e.ps.URL+path, extra)
	if a.HTTP != 200 || a.Status != "success" {
		t.Fatalf("GET %s %s: HTTP %d %s %s", path, extra, a.HTTP, a.Code, a.Message)
	}
	obj, ok := a.Field("screenshot").(map[string]any)
	if !ok {
		t.Fatalf("data.screenshot is %v, want an object: %s", a.Field("screenshot"), a.Raw)
	}
	return a, obj
}

// fetchShot fetches the stored file behind the asset's url, as a caller
// would, with its content type.
func fetchShot(t *testing.T, obj map[string]any) ([]byte, string) {
	t.Helper()
	u, _ := obj["url"].(string)
	if u == "" {
		t.Fatalf("the screenshot has no url: %v", obj)
	}
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("fetching the stored screenshot %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("fetching the stored screenshot %s: HTTP %d", u, resp.StatusCode)
	}
	return body, resp.Header.Get("content-type")
}

// storedShot fetches the stored file and decodes it with the decoder of
// its format.
func storedShot(t *testing.T, obj map[string]any) (image.Image, string, []byte) {
	t.Helper()
	body, ct := fetchShot(t, obj)
	var img image.Image
	var err error
	switch ct {
	case "image/png":
		img, err = png.Decode(bytes.NewReader(body))
	case "image/jpeg":
		img, err = jpeg.Decode(bytes.NewReader(body))
	case "image/webp":
		img, err = webp.Decode(bytes.NewReader(body))
	default:
		t.Fatalf("the stored screenshot has content type %q", ct)
	}
	if err != nil {
		t.Fatalf("decoding the stored %s: %v", ct, err)
	}
	if size, _ := obj["size"].(float64); int(size) != len(body) {
		t.Errorf("data.screenshot.size is %v, the stored file has %d bytes", obj["size"], len(body))
	}
	b := img.Bounds()
	if w, _ := obj["width"].(float64); int(w) != b.Dx() {
		t.Errorf("data.screenshot.width is %v, the image is %d wide", obj["width"], b.Dx())
	}
	if h, _ := obj["height"].(float64); int(h) != b.Dy() {
		t.Errorf("data.screenshot.height is %v, the image is %d tall", obj["height"], b.Dy())
	}
	if sp, _ := obj["size_pretty"].(string); !strings.HasSuffix(sp, "B") {
		t.Errorf("data.screenshot.size_pretty is %q", sp)
	}
	return img, ct, body
}

func pixel(img image.Image, x, y int) color.NRGBA {
	b := img.Bounds()
	return color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
}

// near reports whether a pixel is within tol of the colour in every
// channel, so lossy formats can be checked too.
func near(c color.NRGBA, r, g, b, a uint8, tol int) bool {
	d := func(x, y uint8) bool { return int(x)-int(y) <= tol && int(y)-int(x) <= tol }
	return d(c.R, r) && d(c.G, g) && d(c.B, b) && d(c.A, a)
}

// titleNumbers reads "k=v" pairs from a title the page wrote.
func titleNumbers(t *testing.T, a e2e.Answer, keys ...string) map[string]float64 {
	t.Helper()
	title, _ := a.Field("title").(string)
	out := map[string]float64{}
	for _, kv := range strings.Fields(title) {
		k, v, _ := strings.Cut(kv, "=")
		var f float64
		if _, err := fmt.Sscan(v, &f); err == nil {
			out[k] = f
		}
	}
	for _, k := range keys {
		if _, ok := out[k]; !ok {
			t.Fatalf("the page's title %q does not say %s", title, k)
		}
	}
	return out
}

func TestScreenshots(t *testing.T) {
	// Not beside the PDF tests: its largest screenshot, bounded in area,
	// takes most of a core for tens of seconds. Its image's area is the
	// check that the bound holds, not its time: a machine busy with other
	// tests makes it take minutes, so it may ask for as long.
	env := &shotEnv{}
	env.app = e2e.StartApp(t, func(c *orchestrator.Config) {
		c.SidecarConcurrency = 3
		c.MaxTimeout = 3 * time.Minute
	})
	env.ps = e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/plain":   e2e.HTML(shotPlainPage),
		"/tall":    e2e.HTML(shotTallPage),
		"/element": e2e.HTML(shotElementPage),
		"/endless": e2e.HTML(shotEndlessPage),
		"/lying":   e2e.HTML(shotLyingPage),
		"/wide":    e2e.HTML(shotWidePage),
	})
	startPages, startContexts := env.app.Settled(-1, -1)
	started := time.Now()

	t.Run("a viewport screenshot is a png the size of the viewport", func(t *testing.T) {
		a, obj := env.shot(t, "/plain", "screenshot=true")
		g := titleNumbers(t, a, "vw", "vh", "dpr")
		img, ct, _ := storedShot(t, obj)
		t.Logf("viewport %gx%g at %gx, image %v, %v bytes", g["vw"], g["vh"], g["dpr"], img.Bounds().Size(), obj["size"])
		if ct != "image/png" || obj["type"] != "png" {
			t.Errorf("content type %q, data.screenshot.type %v; want image/png and png", ct, obj["type"])
		}
		if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != int(g["vw"]*g["dpr"]) || h != int(g["vh"]*g["dpr"]) {
			t.Errorf("the image is %dx%d, the viewport %gx%g at %gx", w, h, g["vw"], g["vh"], g["dpr"])
		}
		s := int(g["dpr"])
		if c := pixel(img, 30*s, 30*s); !near(c, 0, 0, 0, 255, 0) {
			t.Errorf("inside the black square the pixel is %v", c)
		}
		if c := pixel(img, 200*s, 200*s); !near(c, 255, 255, 255, 255, 0) {
			t.Errorf("without omitBackground the empty page is %v, want opaque white", c)
		}
		u, _ := obj["url"].(string)
		if !strings.Contains(u, "/shot/") || !strings.HasSuffix(u, ".png") {
			t.Errorf("the screenshot's url %q is not under shot/ with a .png name", u)
		}
		for _, f := range []string{"title", "description", "lang", "url"} {
			if !a.Has(f) {
				t.Errorf("the metadata field %s is missing beside the screenshot", f)
			}
		}
		if got := a.Header.Get("x-fetch-mode"); got != "prerender" {
			t.Errorf("x-fetch-mode %q, want prerender: a screenshot needs the browser", got)
		}
	})

	t.Run("optimizeForSpeed gives the same picture, encoded by the browser's faster way", func(t *testing.T) {
		_, plain := env.shot(t, "/tall", "screenshot.fullPage=true")
		a, fast := env.shot(t, "/tall", "screenshot.fullPage=true&screenshot.optimizeForSpeed=true")
		if ig := a.Header.Get("x-glimpse-ignored"); ig != "" {
			t.Errorf("x-glimpse-ignored %q: the option is applied", ig)
		}
		if plain["url"] == fast["url"] {
			t.Errorf("both encodings are the one stored file %v", plain["url"])
		}
		want, _, _ := storedShot(t, plain)
		got, _, _ := storedShot(t, fast)
		if got.Bounds() != want.Bounds() {
			t.Fatalf("the faster encoding is %v; the default one %v", got.Bounds(), want.Bounds())
		}
		for y := got.Bounds().Min.Y; y < got.Bounds().Max.Y; y += 7 {
			for x := got.Bounds().Min.X; x < got.Bounds().Max.X; x += 7 {
				if g, w := pixel(got, x, y), pixel(want, x, y); g != w {
					t.Fatalf("at %d,%d the faster encoding's pixel is %v, the default one's %v", x, y, g, w)
				}
			}
		}
	})

	t.Run("a full-page screenshot is as tall as the document", func(t *testing.T) {
		a, obj := env.shot(t, "/tall", "screenshot.fullPage=true")
		g := titleNumbers(t, a, "sh", "dpr")
		img, _, _ := storedShot(t, obj)
		if h := img.Bounds().Dy(); h != int(g["sh"]*g["dpr"]) || g["sh"] != 3000 {
			t.Errorf("the image is %d px tall; the document's scrollHeight is %g at %gx", h, g["sh"], g["dpr"])
		}
		if c := pixel(img, 5, img.Bounds().Dy()-3); !near(c, 255, 0, 0, 255, 0) {
			t.Errorf("the document's last rows are not captured: the bottom pixel is %v, want red", c)
		}
		_, vp := env.shot(t, "/tall", "screenshot=true")
		if vp["height"].(float64) >= obj["height"].(float64) {
			t.Errorf("the viewport screenshot (%v px) is not shorter than the full page (%v px)", vp["height"], obj["height"])
		}
	})

	t.Run("a page taller than a browser can capture is cut at the limit", func(t *testing.T) {
		// Narrow enough that the side, not the area, is the bound.
		_, obj := env.shot(t, "/endless", "screenshot.fullPage=true&meta=false&viewport.width=780")
		// The header is enough here: decoding 13 million pixels would
		// only slow the test down.
		body, _ := fetchShot(t, obj)
		cfg, err := png.DecodeConfig(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("the stored file is not a png: %v", err)
		}
		if cfg.Height != render.MaxShotSide || obj["height"] != float64(render.MaxShotSide) {
			t.Errorf("the image is %d px tall (data.screenshot.height %v), want the limit of %d", cfg.Height, obj["height"], render.MaxShotSide)
		}
	})

	t.Run("a page that lies about its pixel ratio is still cut at the limit in pixels", func(t *testing.T) {
		_, obj := env.shot(t, "/lying", "screenshot.fullPage=true&meta=false&viewport.width=300&viewport.height=600&viewport.deviceScaleFactor=3")
		body, _ := fetchShot(t, obj)
		cfg, err := png.DecodeConfig(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("the stored file is not a png: %v", err)
		}
		if cfg.Height > render.MaxShotSide || cfg.Width > render.MaxShotSide {
			t.Errorf("the image is %dx%d px; the limit is %d px a side whatever the page says its pixel ratio is", cfg.Width, cfg.Height, render.MaxShotSide)
		}
	})

	t.Run("the largest image a page can ask for is bounded in area, and the renders beside it are unharmed", func(t *testing.T) {
		others := make(chan e2e.Reply, 4)
		for i := range 4 {
			go func() {
				others <- env.app.TryGet(env.ps.URL+fmt.Sprintf("/plain?beside=%d", i), "prerender=true&force=true")
			}()
		}
		_, obj := env.shot(t, "/wide", "screenshot.fullPage=true&meta=false&timeout=180s")
		body, _ := fetchShot(t, obj)
		cfg, err := png.DecodeConfig(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("the stored file is not a png: %v", err)
		}
		if cfg.Width*cfg.Height > render.MaxShotPixels {
			t.Errorf("the image is %dx%d px, more than %d pixels", cfg.Width, cfg.Height, render.MaxShotPixels)
		}
		for range 4 {
			if o := <-others; o.HTTP != 200 {
				t.Errorf("a render beside the large screenshot failed: %v", o)
			}
		}
	})

	t.Run("an element screenshot is cropped to the element's box, even below the fold", func(t *testing.T) {
		_, obj := env.shot(t, "/element", "screenshot.element=%23box")
		img, _, _ := storedShot(t, obj)
		if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != 123 || h != 45 {
			t.Fatalf("the image is %dx%d, want the box's 123x45", w, h)
		}
		for _, p := range [][2]int{{0, 0}, {122, 0}, {0, 44}, {122, 44}, {61, 22}} {
			if c := pixel(img, p[0], p[1]); !near(c, 255, 0, 0, 255, 0) {
				t.Errorf("pixel %v is %v, want the box's red: the crop is off the box", p, c)
			}
		}
	})

	t.Run("jpeg and webp are stored in their own format with their quality", func(t *testing.T) {
		var sizes []float64
		for _, q := range []string{"10", "95"} {
			_, obj := env.shot(t, "/tall", "screenshot.type=jpeg&screenshot.quality="+q)
			img, ct, _ := storedShot(t, obj)
			if ct != "image/jpeg" || obj["type"] != "jpg" {
				t.Errorf("content type %q, type %v; want image/jpeg and jpg", ct, obj["type"])
			}
			if u, _ := obj["url"].(string); !strings.HasSuffix(u, ".jpg") {
				t.Errorf("the url %q does not end in .jpg", u)
			}
			if img.Bounds().Dx() == 0 {
				t.Error("the jpeg is empty")
			}
			sizes = append(sizes, obj["size"].(float64))
		}
		if sizes[0] >= sizes[1] {
			t.Errorf("quality 10 gave %v bytes, quality 95 %v bytes: the quality was not applied", sizes[0], sizes[1])
		}
		_, obj := env.shot(t, "/plain", "screenshot.type=webp")
		img, ct, _ := storedShot(t, obj)
		if ct != "image/webp" || obj["type"] != "webp" {
			t.Errorf("content type %q, type %v; want image/webp and webp", ct, obj["type"])
		}
		if c := pixel(img, 30, 30); !near(c, 0, 0, 0, 255, 24) {
			t.Errorf("the webp's black square is %v", c)
		}
	})

	t.Run("omitBackground leaves a page without background transparent", func(t *testing.T) {
		for _, typ := range []string{"png", "webp"} {
			_, obj := env.shot(t, "/plain", "screenshot.omitBackground=true&screenshot.type="+typ)
			img, _, _ := storedShot(t, obj)
			if c := pixel(img, 200, 200); c.A != 0 {
				t.Errorf("%s: the empty page is %v, want fully transparent", typ, c)
			}
			if c := pixel(img, 30, 30); !near(c, 0, 0, 0, 255, 24) {
				t.Errorf("%s: the black square is %v, want it opaque", typ, c)
			}
		}
		// The override stays with its request: a later one is opaque.
		_, obj := env.shot(t, "/plain", "screenshot=true&force=true")
		img, _, _ := storedShot(t, obj)
		if c := pixel(img, 200, 200); !near(c, 255, 255, 255, 255, 0) {
			t.Errorf("after an omitBackground request the page is %v, want opaque white", c)
		}
	})

	t.Run("embed=screenshot.url answers with the stored image itself", func(t *testing.T) {
		_, obj := env.shot(t, "/plain", "screenshot=true")
		_, _, stored := storedShot(t, obj)
		a := env.app.Get(env.ps.URL+"/plain", "screenshot=true&embed=screenshot.url")
		if a.HTTP != 200 || a.Header.Get("content-type") != "image/png" {
			t.Fatalf("HTTP %d, content type %q: %s", a.HTTP, a.Header.Get("content-type"), a.Raw)
		}
		if !bytes.Equal(a.Raw, stored) {
			t.Errorf("the embedded image (%d bytes) is not the stored one (%d bytes)", len(a.Raw), len(stored))
		}
		if a.Header.Get("x-cache-status") != "HIT" {
			t.Errorf("x-cache-status %q: embedding an answer already made should not render again", a.Header.Get("x-cache-status"))
		}
	})

	t.Run("the screenshot is stored under the public prefix", func(t *testing.T) {
		_, obj := env.shot(t, "/element", "screenshot.element=%23box&meta=false")
		u, _ := obj["url"].(string)
		name := u[strings.LastIndex(u, "/shot/")+1:]
		o, err := env.app.Store.Stat(t.Context(), storage.PublicPrefix+name)
		if err != nil {
			t.Fatalf("the store has no %s%s: %v", storage.PublicPrefix, name, err)
		}
		if o.ContentType != "image/png" || o.Size != int64(obj["size"].(float64)) {
			t.Errorf("stored as %q with %d bytes", o.ContentType, o.Size)
		}
	})

	t.Run("meta=false gives the screenshot alone", func(t *testing.T) {
		a, _ := env.shot(t, "/plain", "screenshot=true&meta=false")
		var m map[string]any
		if err := json.Unmarshal(a.Data, &m); err != nil || len(m) != 1 {
			t.Errorf("data has %v, want only the screenshot", m)
		}
	})

	t.Run("a screenshot and a PDF come in one answer", func(t *testing.T) {
		a, obj := env.shot(t, "/plain", "screenshot=true&pdf=true")
		pdf, _ := a.Field("pdf").(map[string]any)
		if pdf == nil || pdf["type"] != "pdf" || obj["type"] != "png" {
			t.Errorf("pdf %v, screenshot %v", pdf, obj)
		}
	})

	errorCases := []struct {
		name, path, query string
		msg               string
	}{
		{"an element selector that matches nothing is a query error", "/element", "screenshot.element=%23nowhere", "matches no element"},
		{"an element selector the browser cannot parse is a query error", "/element", "screenshot.element=div%5B", "not a valid CSS selector"},
		{"an element that is not displayed is a query error", "/element", "screenshot.element=%23gone", "no visible box"},
	}
	for _, tc := range errorCases {
		t.Run(tc.name, func(t *testing.T) {
			a := env.app.Get(env.ps.URL+tc.path, tc.query)
			if a.HTTP != 400 || a.Code != apierr.CodeInvalidQuery {
				t.Fatalf("HTTP %d %s %s, want 400 EINVALQUERY", a.HTTP, a.Code, a.Message)
			}
			if !strings.Contains(a.Message, "`screenshot.element`") || !strings.Contains(a.Message, tc.msg) {
				t.Errorf("message %q does not name `screenshot.element` and say %q", a.Message, tc.msg)
			}
		})
	}

	t.Run("a screenshot that cannot be stored is a service error that says so", func(t *testing.T) {
		local, ok := env.app.Store.(*storage.Local)
		if !ok {
			t.Fatalf("the app stores in %T, not the local directory", env.app.Store)
		}
		// A file where the screenshots' folder belongs makes every write
		// under it fail, while the rest of storage keeps working. The
		// service logs that write's "mkdirat files/shot: file exists":
		// this case's doing, not a race of concurrent writes. The parent
		// folder is made here, so that the case also runs alone.
		shots := filepath.Join(local.Dir(), filepath.FromSlash(storage.PublicPrefix+"shot"))
		if err := os.RemoveAll(shots); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(shots), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(shots, []byte("in the way"), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(shots) })
		a := env.app.Get(env.ps.URL+"/plain", "screenshot=true&force=true")
		if a.HTTP != 503 || a.Code != apierr.CodeStorage || a.Status != "error" {
			t.Fatalf("HTTP %d %s %s, want 503 ESTORAGE", a.HTTP, a.Code, a.Message)
		}
		if !strings.Contains(a.Message, "Storing the screenshot failed") || a.Header.Get("retry-after") == "" {
			t.Errorf("message %q, retry-after %q", a.Message, a.Header.Get("retry-after"))
		}
		if a.Has("screenshot") {
			t.Errorf("the error carries data.screenshot: %s", a.Raw)
		}
	})

	t.Run("the screenshots left no page or context behind", func(t *testing.T) {
		pages, contexts := env.app.Settled(startPages, startContexts)
		if pages != startPages || contexts != startContexts {
			t.Errorf("%d pages and %d contexts, %d and %d before", pages, contexts, startPages, startContexts)
		}
	})
	t.Logf("the screenshot cases took %s", time.Since(started).Round(time.Millisecond))
}
