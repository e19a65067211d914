package playground

import (
	"embed"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

//go:embed static
var static embed.FS

// Config is what the page is told.
type Config struct {
	// FilesOrigin is the origin stored screenshots and PDFs are served
	// from (GLIMPSE_PUBLIC_BASE_URL's, or the bucket's), allowed as images
	// and frames beside the page's own; "" when it is the page's own.
	FilesOrigin string
}

// Handler serves the page at any path outside /playground/, and its
// script and stylesheet under /playground/.
type Handler struct {
	csp   string
	files map[string]file
}

type file struct {
	body        []byte
	contentType string
}

// New builds the handler.
func New(cfg Config) *Handler {
	h := &Handler{csp: CSP(cfg.FilesOrigin), files: map[string]file{}}
	for name, ct := range map[string]string{
		"index.html": "text/html; charset=utf-8",
		"app.js":     "text/javascript; charset=utf-8",
		"app.css":    "text/css; charset=utf-8",
	} {
		b, err := static.ReadFile("static/" + name)
		if err != nil {
			panic("playground: " + name + " is not embedded: " + err.Error())
		}
		h.files[name] = file{body: b, contentType: ct}
	}
	return h
}

// CSP is the page's policy: its own script and styles only, no inline
// code, images from itself (the card's pictures come through the API's
// `embed`, as blobs) and, with the frames the PDF viewer needs, from the
// files' origin.
func CSP(filesOrigin string) string {
	files := ""
	if o := Origin(filesOrigin); o != "" {
		files = " " + o
	}
	return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:" + files +
		"; frame-src 'self'" + files + "; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
}

// Origin is scheme://host[:port] of a base URL, or "" when it has none.
func Origin(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// Paths are the page's script and stylesheet; the page itself is at /.
func (h *Handler) Paths() []string { return []string{"/playground/app.js", "/playground/app.css"} }

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := "index.html"
	if rest, ok := strings.CutPrefix(r.URL.Path, "/playground/"); ok {
		name = rest
	}
	f, ok := h.files[name]
	if !ok || name == "index.html" && r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	hd := w.Header()
	hd.Set("content-type", f.contentType)
	hd.Set("content-length", strconv.Itoa(len(f.body)))
	hd.Set("x-content-type-options", "nosniff")
	hd.Set("referrer-policy", "no-referrer")
	hd.Set("cache-control", "no-cache")
	if name == "index.html" {
		hd.Set("content-security-policy", h.csp)
		hd.Set("x-frame-options", "DENY")
		hd.Add("vary", "Accept")
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	_, _ = w.Write(f.body)
}
