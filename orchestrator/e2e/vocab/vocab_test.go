package vocab_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// The rest of Microlink's vocabulary against a real glimpse, pages and
// providers on loopback: video and audio in each vocabulary a page
// declares them in, oEmbed in both forms and the ways a provider can
// misbehave, palettes of images of known colours, technologies of pages
// that show them, and `attr: json` on a JSON target with and without a
// browser.

// stripesPNG is a PNG of horizontal bands, the first taking share percent
// of the rows.
func stripesPNG(t *testing.T, first, second color.NRGBA, share int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 200, 100))
	for y := range 100 {
		c := second
		if y < share {
			c = first
		}
		for x := range 200 {
			img.SetNRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func serveBytes(contentType string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", contentType)
		_, _ = w.Write(body)
	}
}

// page is a page with head in its head and body in its body, and text
// enough for a plain fetch to answer it.
func page(head string) http.HandlerFunc { return pageWith(head, "") }

func pageWith(head, body string) http.HandlerFunc {
	return e2e.HTML(`<!doctype html><html lang="en"><head><title>A page of media</title>` + head +
		`</head><body><h1>A page of media</h1><p>` + strings.Repeat("Enough text for a plain fetch to be the page. ", 8) + `</p>` + body + `</body></html>`)
}

// refusedServer serves on 127.0.0.2, outside the app's allowed 127.0.0.1,
// standing in for a private address; it counts what reaches it.
func refusedServer(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address here: %v", err)
	}
	hits := &atomic.Int64{}
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("content-type", "application/json")
		fmt.Fprint(w, `{"type":"rich","version":"1.0","html":"<p>private</p>"}`)
	}))
	s.Listener = ln
	s.Start()
	t.Cleanup(s.Close)
	return s.URL, hits
}

func TestMicrolinkVocabulary(t *testing.T) {
	app := e2e.StartApp(t, func(c *orchestrator.Config) {
		c.AllowTargets = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	privateURL, privateHits := refusedServer(t)

	navy, cream := color.NRGBA{0x10, 0x20, 0x60, 0xff}, color.NRGBA{0xf5, 0xf0, 0xe0, 0xff}
	red, white := color.NRGBA{0xe0, 0x20, 0x20, 0xff}, color.NRGBA{0xff, 0xff, 0xff, 0xff}
	mp4 := bytes.Repeat([]byte{0x11}, 4321)
	mp3 := bytes.Repeat([]byte{0x22}, 1234)
	var ps *e2e.PageServer
	oembed := func(w http.ResponseWriter, r *http.Request) {
		width := r.URL.Query().Get("maxwidth")
		if width == "" {
			width = "640"
		}
		html := fmt.Sprintf(`<iframe width="%s" src="https://player.example/e/1"></iframe><script async src="https://player.example/embed.js"></script>`, width)
		if r.URL.Query().Get("format") == "xml" {
			w.Header().Set("content-type", "text/xml; charset=utf-8")
			var esc bytes.Buffer
			_ = xmlEscape(&esc, html)
			fmt.Fprintf(w, `<?xml version="1.0" encoding="utf-8"?><oembed><version>1.0</version><type>video</type><html>%s</html></oembed>`, esc.String())
			return
		}
		w.Header().Set("content-type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"version": "1.0", "type": "video", "html": html, "width": width})
	}
	link := func(kind, endpoint string) string {
		return `<link rel="alternate" type="` + kind + `" href="` + endpoint + `">`
	}
	ps = e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/video/og": page(`<meta property="og:video" content="/files/clip.mp4"><meta property="og:video:type" content="video/mp4">
			<meta property="og:video:width" content="1280"><meta property="og:video:height" content="720">`),
		"/video/player-first": page(`<meta property="og:video" content="/player/1"><meta property="og:video:type" content="text/html">
			<meta name="twitter:player:stream" content="/files/clip.mp4"><meta name="twitter:player:width" content="480"><meta name="twitter:player:height" content="270">`),
		"/video/ld":        page(`<script type="application/ld+json">{"@type":"VideoObject","name":"Talk","contentUrl":"/files/clip.mp4","duration":"PT1M30S","width":640,"height":360}</script>`),
		"/video/tag":       pageWith("", `<video width="320" height="180"><source src="/files/missing.mp4" type="video/mp4"><source src="/files/octet.mp4" type="video/mp4"></video>`),
		"/audio/og":        page(`<meta property="og:audio" content="/files/song.mp3"><meta property="og:audio:type" content="audio/mpeg">`),
		"/audio/ld":        page(`<script type="application/ld+json">{"@type":"PodcastEpisode","name":"E1","associatedMedia":{"@type":"AudioObject","contentUrl":"/files/song.mp3","duration":"PT30M"}}</script>`),
		"/audio/tag":       pageWith("", `<audio controls src="/files/song.mp3"></audio>`),
		"/media/none":      page(``),
		"/files/clip.mp4":  serveBytes("video/mp4", mp4),
		"/files/octet.mp4": serveBytes("application/octet-stream", mp4),
		"/files/song.mp3":  serveBytes("audio/mpeg", mp3),
		"/files/served-by-nginx.mp4": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("server", "nginx/1.24.0")
			serveBytes("video/mp4", mp4)(w, r)
		},
		"/files/missing.mp4": http.NotFound,
		"/palette":           page(`<meta property="og:image" content="/img/navy.png"><link rel="icon" type="image/png" href="/img/red.png">`),
		"/img/navy.png":      serveBytes("image/png", stripesPNG(t, navy, cream, 70)),
		"/img/red.png":       serveBytes("image/png", stripesPNG(t, red, white, 80)),
		"/shot":              e2e.HTML(`<!doctype html><html><head><title>Navy</title><style>html,body{margin:0;background:#102060;height:100%}</style></head><body></body></html>`),
		"/oembed/json":       page(link("application/json+oembed", "/provider?format=json&url=x")),
		"/oembed/xml":        page(link("text/xml+oembed", "/provider?format=xml&url=x")),
		"/oembed/redirect": page(link("application/json+oembed", "/provider/redirect") +
			link("text/xml+oembed", "/provider/redirect?again")),
		"/oembed/big":   page(link("application/json+oembed", "/provider/big")),
		"/oembed/none":  page(``),
		"/provider":     oembed,
		"/provider/big": serveBytes("application/json", append(append([]byte(`{"type":"rich","html":"`), bytes.Repeat([]byte("x"), 10<<20)...), `"}`...)),
		"/provider/redirect": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, privateURL+"/oembed", http.StatusFound)
		},
		"/tech/wordpress": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("server", "nginx/1.25.3")
			http.SetCookie(w, &http.Cookie{Name: "PHPSESSID", Value: "secret-session-value", Path: "/"})
			page(`<meta name="generator" content="WordPress 6.4.2"><link rel="stylesheet" href="/wp-content/themes/t/style.css">
				<script src="/wp-includes/js/jquery/jquery.min.js"></script>`)(w, r)
		},
		"/tech/laravel": func(w http.ResponseWriter, r *http.Request) {
			http.SetCookie(w, &http.Cookie{Name: "laravel_session", Value: "secret-session-value", Path: "/", HttpOnly: true})
			page(``)(w, r)
		},
		"/tech/next": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("x-powered-by", "Next.js")
			page(`<script src="/_next/static/chunks/main.js"></script><script async src="https://www.googletagmanager.com/gtag/js?id=G-TEST1"></script>`)(w, r)
		},
		"/api/pokemon": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("content-type", "application/json")
			fmt.Fprint(w, `{"name":"pikachu","id":25,"types":[{"slot":1,"type":{"name":"electric"}}],"weight":60.0}`)
		},
	})
	get := func(t *testing.T, path, extra string) e2e.Answer {
		t.Helper()
		a := app.Get(ps.URL+path, extra)
		if a.HTTP != 200 {
			t.Fatalf("HTTP %d %s %s", a.HTTP, a.Code, a.Message)
		}
		if ig := a.Header.Get("x-glimpse-ignored"); ig != "" && !strings.Contains(extra, "insights") {
			t.Errorf("x-glimpse-ignored %q: the options are applied now", ig)
		}
		return a
	}
	obj := func(t *testing.T, a e2e.Answer, name string) map[string]any {
		t.Helper()
		m, _ := a.Field(name).(map[string]any)
		if m == nil {
			t.Fatalf("data.%s is %v, want an object; data %s", name, a.Field(name), a.Data)
		}
		return m
	}

	t.Run("video and audio in each vocabulary", func(t *testing.T) {
		tests := []struct {
			name, path, kind, extra string
			want                    map[string]any
		}{
			{"og:video with its size", "/video/og", "video", "", map[string]any{"url": ps.URL + "/files/clip.mp4", "type": "mp4",
				"size": float64(len(mp4)), "size_pretty": "4.32 kB", "width": 1280.0, "height": 720.0}},
			{"a player page declared first gives way to twitter:player:stream", "/video/player-first", "video", "", map[string]any{
				"url": ps.URL + "/files/clip.mp4", "type": "mp4", "size": float64(len(mp4)), "size_pretty": "4.32 kB", "width": 480.0, "height": 270.0}},
			{"JSON-LD VideoObject with its duration", "/video/ld", "video", "", map[string]any{"url": ps.URL + "/files/clip.mp4", "type": "mp4",
				"size": float64(len(mp4)), "size_pretty": "4.32 kB", "width": 640.0, "height": 360.0, "duration": 90.0}},
			{"the page's <video> sources, a missing one skipped, octet-stream known by its name", "/video/tag", "video", "", map[string]any{
				"url": ps.URL + "/files/octet.mp4", "type": "mp4", "size": float64(len(mp4)), "size_pretty": "4.32 kB", "width": 320.0, "height": 180.0}},
			{"og:audio", "/audio/og", "audio", "", map[string]any{"url": ps.URL + "/files/song.mp3", "type": "mp3", "size": float64(len(mp3)), "size_pretty": "1.23 kB"}},
			{"JSON-LD AudioObject under a podcast episode", "/audio/ld", "audio", "", map[string]any{"url": ps.URL + "/files/song.mp3", "type": "mp3",
				"size": float64(len(mp3)), "size_pretty": "1.23 kB", "duration": 1800.0}},
			{"the page's <audio src>", "/audio/tag", "audio", "", map[string]any{"url": ps.URL + "/files/song.mp3", "type": "mp3", "size": float64(len(mp3)), "size_pretty": "1.23 kB"}},
			{"with ping off, what the page declares, unfetched", "/video/ld", "video", "&ping=false", map[string]any{"url": ps.URL + "/files/clip.mp4", "type": "mp4",
				"width": 640.0, "height": 360.0, "duration": 90.0}},
			{"rendered in a browser, the same", "/video/og", "video", "&prerender=true", map[string]any{"url": ps.URL + "/files/clip.mp4", "type": "mp4",
				"size": float64(len(mp4)), "size_pretty": "4.32 kB", "width": 1280.0, "height": 720.0}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				a := get(t, tc.path, tc.kind+tc.extra)
				got := obj(t, a, tc.kind)
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(tc.want)
				if string(g) != string(w) {
					t.Errorf("data.%s\n got %s\nwant %s", tc.kind, g, w)
				}
			})
		}
		t.Run("a video file target is its own video, with no oEmbed, its technologies from its headers", func(t *testing.T) {
			for _, extra := range []string{"video&iframe&insights.technologies", "video&iframe&insights.technologies&meta=false"} {
				a := get(t, "/files/served-by-nginx.mp4", extra)
				v := obj(t, a, "video")
				if v["url"] != ps.URL+"/files/served-by-nginx.mp4" || v["type"] != "mp4" {
					t.Errorf("%s: data.video %v", extra, v)
				}
				if !a.Has("iframe") || a.Field("iframe") != nil {
					t.Errorf("%s: data.iframe %v, want null", extra, a.Field("iframe"))
				}
				techs, _ := obj(t, a, "insights")["technologies"].([]any)
				if len(techs) != 1 || techs[0].(map[string]any)["name"] != "Nginx" {
					t.Errorf("%s: technologies %v, want Nginx", extra, techs)
				}
				if n := strings.Count(string(a.Data), `"video"`); n != 1 {
					t.Errorf("%s: %d video fields in %s", extra, n, a.Data)
				}
			}
		})
		t.Run("a page with none has null, and an option not asked for is absent", func(t *testing.T) {
			a := get(t, "/media/none", "video&meta=false")
			if !a.Has("video") || a.Field("video") != nil || a.Has("audio") || a.Has("title") {
				t.Errorf("data %s", a.Data)
			}
		})
	})

	t.Run("palette of the image and the logo", func(t *testing.T) {
		a := get(t, "/palette", "palette&meta.image&meta.logo")
		img, logo := obj(t, a, "image"), obj(t, a, "logo")
		if p, _ := img["palette"].([]any); len(p) != 2 || p[0] != "#102060" || p[1] != "#f5f0e0" {
			t.Errorf("image palette %v, want navy then cream", img["palette"])
		}
		if img["background_color"] != "#102060" || img["color"] != "#f5f0e0" || img["alternative_color"] != "#ffffff" {
			t.Errorf("image colours %v %v %v", img["background_color"], img["color"], img["alternative_color"])
		}
		if p, _ := logo["palette"].([]any); len(p) != 2 || p[0] != "#e02020" || logo["background_color"] != "#e02020" {
			t.Errorf("logo palette %v background %v, want red first", logo["palette"], logo["background_color"])
		}
		if img["width"] != 200.0 || img["size"] == nil {
			t.Errorf("the image lost its probed fields: %v", img)
		}
		b := get(t, "/palette", "meta.image&meta.logo")
		if _, has := obj(t, b, "image")["palette"]; has {
			t.Error("a palette without `palette` asked for")
		}
	})

	t.Run("palette of an image target", func(t *testing.T) {
		a := get(t, "/img/navy.png", "palette")
		img := obj(t, a, "image")
		if img["background_color"] != "#102060" || img["width"] != 200.0 {
			t.Errorf("data.image %v", img)
		}
	})

	t.Run("palette of the screenshot", func(t *testing.T) {
		a := get(t, "/shot", "meta=false&screenshot&palette")
		shot := obj(t, a, "screenshot")
		if shot["background_color"] != "#102060" || shot["color"] != "#ffffff" {
			t.Errorf("screenshot colours %v on %v", shot["color"], shot["background_color"])
		}
	})

	t.Run("iframe from the page's oEmbed", func(t *testing.T) {
		want := func(width string) map[string]any {
			return map[string]any{
				"html":    `<iframe width="` + width + `" src="https://player.example/e/1"></iframe><script async src="https://player.example/embed.js"></script>`,
				"scripts": []any{map[string]any{"src": "https://player.example/embed.js", "async": true}},
			}
		}
		tests := []struct {
			name, path, extra string
			want              map[string]any
		}{
			{"the JSON form", "/oembed/json", "iframe", want("640")},
			{"the XML form", "/oembed/xml", "iframe", want("640")},
			{"maxWidth reaches the provider as maxwidth, with meta off as Microlink's recipe asks", "/oembed/json", "meta=false&iframe.maxWidth=350", want("350")},
			{"the XML form takes the size too", "/oembed/xml", "iframe.maxWidth=200&iframe.maxHeight=100", want("200")},
			{"a page without oEmbed has none", "/oembed/none", "iframe", nil},
			{"a provider redirecting to a refused address is refused", "/oembed/redirect", "iframe", nil},
			{"a provider answering 10 MB is not read", "/oembed/big", "iframe", nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				start := time.Now()
				a := get(t, tc.path, tc.extra)
				if !a.Has("iframe") {
					t.Fatalf("no iframe field in %s", a.Data)
				}
				g, _ := json.Marshal(a.Field("iframe"))
				w, _ := json.Marshal(tc.want)
				if tc.want == nil {
					w = []byte("null")
				}
				if string(g) != string(w) {
					t.Errorf("data.iframe\n got %s\nwant %s", g, w)
				}
				if d := time.Since(start); d > 10*time.Second {
					t.Errorf("took %s", d)
				}
			})
		}
		if n := privateHits.Load(); n != 0 {
			t.Errorf("the refused address was reached %d times", n)
		}
		if ps.Hits["/provider/redirect"].Load() == 0 || ps.Hits["/provider/big"].Load() == 0 {
			t.Error("the misbehaving providers were never asked, so their refusal shows nothing")
		}
	})

	t.Run("insights.technologies", func(t *testing.T) {
		tests := []struct {
			name, path, extra string
			want              []string
		}{
			{"WordPress on nginx, PHP known by its session cookie", "/tech/wordpress", "insights.technologies", []string{"WordPress", "Nginx", "PHP", "jQuery"}},
			{"the same in a browser", "/tech/wordpress", "insights.technologies&prerender=true", []string{"WordPress", "Nginx", "PHP", "jQuery"}},
			{"a framework that shows only in its session cookie", "/tech/laravel", "insights.technologies", []string{"Laravel", "PHP"}},
			{"a framework that shows only in its session cookie, in a browser", "/tech/laravel", "insights.technologies&prerender=true", []string{"Laravel", "PHP"}},
			{"Next.js with React implied, and Google Analytics", "/tech/next", "insights=true", []string{"Next.js", "React", "Google Analytics"}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				a := get(t, tc.path, tc.extra)
				ins := obj(t, a, "insights")
				techs, _ := ins["technologies"].([]any)
				var names []string
				for _, x := range techs {
					m := x.(map[string]any)
					names = append(names, m["name"].(string))
					if c, _ := m["confidence"].(float64); c < 1 || c > 100 {
						t.Errorf("%v: confidence %v", m["name"], m["confidence"])
					}
					if _, ok := m["categories"].([]any); !ok {
						t.Errorf("%v: no categories", m["name"])
					}
				}
				for _, w := range tc.want {
					if !slices.Contains(names, w) {
						t.Errorf("%s not detected in %v", w, names)
					}
				}
				if strings.Contains(string(a.Raw), "secret-session-value") {
					t.Error("a cookie's value reached the answer")
				}
				if tc.extra == "insights=true" {
					if ig := a.Header.Get("x-glimpse-ignored"); ig != "insights.lighthouse" {
						t.Errorf("x-glimpse-ignored %q, want insights.lighthouse", ig)
					}
				}
			})
		}
	})

	t.Run("attr json on a JSON target", func(t *testing.T) {
		const want = `{"name":"pikachu","id":25,"types":[{"slot":1,"type":{"name":"electric"}}],"weight":60.0}`
		for _, extra := range []string{"data.json.attr=json&meta=false&prerender=false", "data.json.attr=json&meta=false&prerender=true", "data.json.attr=json"} {
			t.Run(extra, func(t *testing.T) {
				a := get(t, "/api/pokemon", extra)
				var d struct {
					JSON json.RawMessage `json:"json"`
				}
				if err := json.Unmarshal(a.Data, &d); err != nil || string(d.JSON) != want {
					t.Errorf("data.json %s, want %s", d.JSON, want)
				}
			})
		}
	})

	t.Run("a bad value of an option is a 400 naming it", func(t *testing.T) {
		for _, tc := range []struct{ extra, param string }{
			{"iframe.maxWidth=0", "iframe.maxWidth"}, {"palette=yes", "palette"}, {"video=1", "video"},
			{"iframe=false&iframe.max_height=10", "iframe"},
		} {
			a := app.Get(ps.URL+"/media/none", tc.extra)
			if a.HTTP != 400 || a.Code != apierr.CodeInvalidQuery || !strings.Contains(a.Message, "`"+tc.param+"`") {
				t.Errorf("%s: HTTP %d %s %s", tc.extra, a.HTTP, a.Code, a.Message)
			}
		}
	})
}

// xmlEscape escapes text for an XML element.
func xmlEscape(b *bytes.Buffer, s string) error {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
	_, err := b.WriteString(r.Replace(s))
	return err
}
