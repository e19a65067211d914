package e2e

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// PageServer serves test pages on loopback and counts hits per path.
type PageServer struct {
	*httptest.Server
	Hits map[string]*atomic.Int64
}

// NewPageServer serves routes until the test ends.
func NewPageServer(t *testing.T, routes map[string]http.HandlerFunc) *PageServer {
	t.Helper()
	ps := &PageServer{Hits: map[string]*atomic.Int64{}}
	mux := http.NewServeMux()
	for p, h := range routes {
		n := &atomic.Int64{}
		ps.Hits[p] = n
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) { n.Add(1); h(w, r) })
	}
	ps.Server = httptest.NewServer(mux)
	t.Cleanup(ps.Close)
	return ps
}

// HTML answers body as an HTML page.
func HTML(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
}

// NewMuxServer serves h on loopback until the test ends.
func NewMuxServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// ArticlePage is a static article with a title, a description, a
// language and a publisher.
const ArticlePage = `<!doctype html><html lang="en-GB"><head>
<title>A walk in the park | Example Times</title>
<meta name="description" content="Somebody walked in a park and wrote about it.">
<meta property="og:site_name" content="Example Times">
</head><body><h1>A walk in the park</h1><p>Trees.</p></body></html>`

// PNG is a real, blank PNG of the given size.
func PNG(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
