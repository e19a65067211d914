package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// titledPDF is a small, well-formed PDF with a title and an author in its
// information dictionary.
func titledPDF(title, author string) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>")
	obj(fmt.Sprintf("<< /Title (%s) /Author (%s) /Producer (glimpse tests) /CreationDate (D:20250102030405Z) >>", title, author))
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// serveFile answers with body as a file of the given type and headers.
func serveFile(contentType string, body []byte, hdr ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", contentType)
		w.Header().Set("content-length", fmt.Sprint(len(body)))
		for i := 0; i+1 < len(hdr); i += 2 {
			w.Header().Set(hdr[i], hdr[i+1])
		}
		w.Write(body)
	}
}

// notRetried reports whether got (under @microlink/mql) would leave an
// answer of this status alone rather than send the request twice more.
func notRetried(status int) bool { return !slices.Contains(apierr.ClientRetried, status) }

func TestFileTargets(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	pdf := titledPDF("Quarterly Results 2025", "Ada Lovelace")
	pic := e2e.PNG(t, 320, 200)
	const modified = "Wed, 01 Oct 2025 08:30:00 GMT"
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/docs/Annual%20Report.pdf": serveFile("application/pdf", pdf, "last-modified", modified),
		"/plain.pdf":                serveFile("application/pdf", []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n")),
		"/img/photo.png":            serveFile("image/png", pic),
		"/download":                 serveFile("application/octet-stream", bytes.Repeat([]byte{7}, 100<<10), "content-disposition", `attachment; filename="data set.bin"`),
		"/media/song.mp3":           serveFile("audio/mpeg", append([]byte("ID3\x04\x00\x00\x00\x00\x00\x00"), bytes.Repeat([]byte{0}, 4096)...)),
		"/media/clip.mp4":           serveFile("video/mp4", append([]byte("\x00\x00\x00\x18ftypmp42"), bytes.Repeat([]byte{0}, 4096)...)),
		"/go": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/then", http.StatusMovedPermanently)
		},
		"/then": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/img/photo.png", http.StatusFound)
		},
	})
	modes := []struct{ name, query string }{
		{"with a plain fetch", ""},
		{"in the browser", "prerender=true"},
	}
	data := func(a e2e.Answer, name string) map[string]any {
		m, _ := a.Field(name).(map[string]any)
		return m
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			q := "force=true"
			if m.query != "" {
				q += "&" + m.query
			}
			browser := m.query != ""
			once := func(t *testing.T, path string, before int64) {
				t.Helper()
				if n := ps.Hits[path].Load() - before; n != 1 {
					t.Errorf("%s was fetched %d times for one request; want once", path, n)
				}
			}
			success := func(t *testing.T, a e2e.Answer) {
				t.Helper()
				if a.HTTP != 200 || a.Status != "success" {
					t.Fatalf("answered %d %s %s: %s; want 200 success", a.HTTP, a.Status, a.Code, a.Raw)
				}
			}

			t.Run("a PDF answers with its own title, author and date", func(t *testing.T) {
				path := "/docs/Annual%20Report.pdf"
				before := ps.Hits[path].Load()
				a := app.Get(ps.URL+path, q)
				success(t, a)
				once(t, path, before)
				want := "Quarterly Results 2025"
				if browser {
					want = "Annual Report.pdf" // the browser never hands over the bytes
				}
				if a.Field("title") != want {
					t.Errorf("title %v, want %q", a.Field("title"), want)
				}
				if !browser && a.Field("author") != "Ada Lovelace" {
					t.Errorf("author %v, want the info dictionary's", a.Field("author"))
				}
				// The document's own creation date, when glimpse read the
				// file; else the server's Last-Modified.
				wantDate := "2025-01-02T03:04:05.000Z"
				if browser {
					wantDate = "2025-10-01T08:30:00.000Z"
				}
				if a.Field("date") != wantDate {
					t.Errorf("date %v, want %s", a.Field("date"), wantDate)
				}
				if a.Field("url") != ps.URL+path {
					t.Errorf("url %v, want %s", a.Field("url"), ps.URL+path)
				}
				for _, f := range []string{"description", "lang", "publisher", "image", "logo"} {
					if !a.Has(f) || a.Field(f) != nil {
						t.Errorf("%s is %v; want null", f, a.Field(f))
					}
				}
				var env struct {
					StatusCode int               `json:"statusCode"`
					Headers    map[string]string `json:"headers"`
				}
				_ = json.Unmarshal(a.Raw, &env)
				if env.StatusCode != 200 || env.Headers["content-type"] != "application/pdf" {
					t.Errorf("statusCode %d, headers %v; want the target's 200 and content-type", env.StatusCode, env.Headers)
				}
			})

			t.Run("a PDF without metadata is titled by its file name", func(t *testing.T) {
				a := app.Get(ps.URL+"/plain.pdf", q)
				success(t, a)
				if a.Field("title") != "plain.pdf" {
					t.Errorf("title %v, want plain.pdf", a.Field("title"))
				}
			})

			t.Run("an image is its own image, with its size and dimensions", func(t *testing.T) {
				path := "/img/photo.png"
				before := ps.Hits[path].Load()
				a := app.Get(ps.URL+path, q)
				success(t, a)
				once(t, path, before)
				img := data(a, "image")
				if img == nil || img["url"] != ps.URL+path || img["type"] != "png" || img["size"] != float64(len(pic)) {
					t.Fatalf("image %v; want the target itself, type png, size %d", a.Field("image"), len(pic))
				}
				if !browser && (img["width"] != float64(320) || img["height"] != float64(200)) {
					t.Errorf("image %v; want 320x200", img)
				}
				if a.Field("title") != "photo.png" {
					t.Errorf("title %v, want photo.png", a.Field("title"))
				}
			})

			t.Run("a download is titled by Content-Disposition's filename", func(t *testing.T) {
				before := ps.Hits["/download"].Load()
				a := app.Get(ps.URL+"/download", q)
				success(t, a)
				once(t, "/download", before)
				if a.Field("title") != "data set.bin" {
					t.Errorf("title %v, want the filename the server gave", a.Field("title"))
				}
				if a.Field("image") != nil || a.Has("video") || a.Has("audio") {
					t.Errorf("a binary download answered image %v, video or audio; want none", a.Field("image"))
				}
			})

			for _, media := range []struct{ path, field, typ string }{
				{"/media/song.mp3", "audio", "mp3"},
				{"/media/clip.mp4", "video", "mp4"},
			} {
				t.Run("a "+media.field+" file answers with its "+media.field+" object", func(t *testing.T) {
					before := ps.Hits[media.path].Load()
					a := app.Get(ps.URL+media.path, q)
					success(t, a)
					once(t, media.path, before)
					obj := data(a, media.field)
					if obj == nil || obj["url"] != ps.URL+media.path || obj["size"] == nil || obj["size_pretty"] == nil {
						t.Fatalf("%s is %v; want the file's url, size and size_pretty: %s", media.field, a.Field(media.field), a.Raw)
					}
					if obj["type"] != media.typ {
						t.Errorf("%s type %v, want %s", media.field, obj["type"], media.typ)
					}
				})
			}

			t.Run("redirects to a file are followed and reported", func(t *testing.T) {
				before := ps.Hits["/img/photo.png"].Load()
				a := app.Get(ps.URL+"/go", q)
				success(t, a)
				once(t, "/img/photo.png", before)
				if a.Field("url") != ps.URL+"/img/photo.png" {
					t.Errorf("url %v, want the file the redirects led to", a.Field("url"))
				}
				var env struct {
					Redirects []struct {
						URL        string `json:"url"`
						StatusCode int    `json:"statusCode"`
					} `json:"redirects"`
				}
				_ = json.Unmarshal(a.Raw, &env)
				if len(env.Redirects) != 2 || env.Redirects[0].StatusCode != 301 || env.Redirects[1].StatusCode != 302 {
					t.Errorf("redirects %+v; want the 301 and the 302", env.Redirects)
				}
			})

			t.Run("data rules of a file come back null", func(t *testing.T) {
				a := app.Get(ps.URL+"/download", q+"&data.heading.selector=h1")
				success(t, a)
				if !a.Has("heading") || a.Field("heading") != nil {
					t.Errorf("the rule heading is %v (present: %t); want null", a.Field("heading"), a.Has("heading"))
				}
			})
		})
	}

	t.Run("a PDF or screenshot of a file the browser only downloads fails as the request's, fetched once", func(t *testing.T) {
		for _, c := range []struct{ path, extra, param string }{
			{"/docs/Annual%20Report.pdf", "pdf=true", "pdf"},
			{"/download", "screenshot=true", "screenshot"},
		} {
			before := ps.Hits[c.path].Load()
			a := app.Get(ps.URL+c.path, c.extra+"&force=true")
			if a.HTTP != 400 || a.Code != "EINVALQUERY" || a.Status != "fail" || !strings.Contains(a.Message, "`"+c.param+"`") {
				t.Errorf("%s of %s answered %d %s %q: %s; want 400 EINVALQUERY naming `%s`", c.extra, c.path, a.HTTP, a.Code, a.Message, a.Raw, c.param)
			}
			if n := ps.Hits[c.path].Load() - before; n != 1 {
				t.Errorf("%s of %s fetched it %d times; want once", c.extra, c.path, n)
			}
		}
	})

	t.Run("a screenshot of an image target shows the image", func(t *testing.T) {
		a := app.Get(ps.URL+"/img/photo.png", "screenshot=true&force=true")
		if a.HTTP != 200 || data(a, "screenshot") == nil || data(a, "image") == nil {
			t.Errorf("a screenshot of an image answered %d %s: %s; want the screenshot and the image object", a.HTTP, a.Code, a.Raw)
		}
	})

	t.Run("text and JSON targets are still read as pages", func(t *testing.T) {
		ts := e2e.NewPageServer(t, map[string]http.HandlerFunc{
			"/notes.txt": serveFile("text/plain; charset=utf-8", []byte("Just some notes.\n")),
			"/api.json":  serveFile("application/json", []byte(`{"hello":"world"}`)),
		})
		for _, p := range []string{"/notes.txt", "/api.json"} {
			a := app.Get(ts.URL+p, "force=true")
			if a.HTTP != 200 || a.Field("url") != ts.URL+p {
				t.Errorf("%s answered %d %s: %s; want 200 with its url", p, a.HTTP, a.Code, a.Raw)
			}
		}
	})
}

func TestFileTargetsKeepTheAddressRule(t *testing.T) {
	t.Run("a file on a private address is refused before it is fetched", func(t *testing.T) {
		app := e2e.StartApp(t, func(c *orchestrator.Config) { c.AllowTargets = nil })
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/a.pdf": serveFile("application/pdf", titledPDF("Secret", "x"))})
		for _, mode := range []string{"force=true", "force=true&prerender=true", "force=true&pdf=true"} {
			a := app.Get(ps.URL+"/a.pdf", mode)
			if a.HTTP != 400 || a.Code != "EFORBIDDENURL" {
				t.Errorf("%s answered %d %s; want 400 EFORBIDDENURL", mode, a.HTTP, a.Code)
			}
		}
		if n := ps.Hits["/a.pdf"].Load(); n != 0 {
			t.Errorf("the refused file was fetched %d times", n)
		}
	})

	t.Run("a redirect to a file on a refused address is refused", func(t *testing.T) {
		app := e2e.StartApp(t, func(c *orchestrator.Config) { c.AllowTargets = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")} })
		var private atomic.Int64
		other := newRecordingSite(t, "127.0.0.2:0", map[string]http.HandlerFunc{
			"/secret.pdf": func(w http.ResponseWriter, r *http.Request) {
				private.Add(1)
				serveFile("application/pdf", titledPDF("Secret", "x"))(w, r)
			},
		})
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
			"/go": func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+"/secret.pdf", http.StatusFound)
			},
		})
		for _, mode := range []string{"force=true", "force=true&prerender=true"} {
			a := app.Get(ps.URL+"/go", mode)
			if a.HTTP != 400 || a.Code != "EFORBIDDENURL" {
				t.Errorf("%s answered %d %s: %s; want 400 EFORBIDDENURL", mode, a.HTTP, a.Code, a.Raw)
			}
		}
		if n := private.Load(); n != 0 {
			t.Errorf("the file on the refused address was fetched %d times", n)
		}
	})
}

// TestTargetFailuresAreNotRetriedByClients checks the status of failures
// that a second try does not mend: got, under @microlink/mql, retries
// only the statuses in apierr.ClientRetried.
func TestTargetFailuresAreNotRetriedByClients(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	// A port nothing listens on: a listener opened and closed at once.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/"
	ln.Close()
	var hangups atomic.Int64
	hangup := e2e.NewMuxServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hangups.Add(1)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	tlsBad := httptest.NewTLSServer(e2e.HTML("<title>self-signed</title>"))
	t.Cleanup(tlsBad.Close)
	cases := []struct{ name, target string }{
		{"a refused connection", refused},
		{"a target that closes the connection", hangup.URL + "/"},
		{"a certificate no browser trusts", tlsBad.URL + "/"},
	}
	for _, c := range cases {
		for _, mode := range []string{"force=true", "force=true&prerender=true"} {
			t.Run(c.name+" with "+mode, func(t *testing.T) {
				a := app.Get(c.target, mode)
				if a.Code != "EFETCH" || a.Status != "fail" || !notRetried(a.HTTP) {
					t.Errorf("answered %d %s %s: %s; want EFETCH with a status clients do not retry", a.HTTP, a.Status, a.Code, a.Raw)
				}
			})
		}
	}
}
