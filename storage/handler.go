package storage

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"
)

// Handler serves the public objects of the local store: mount it at
// PublicPath with that prefix stripped, so that the request path is the key
// without PublicPrefix. It answers GET and HEAD with the stored content type,
// Content-Length, ETag, Range and conditional requests, and a year of
// immutable caching; anything that is not a stored public object, such as a
// cache entry, a folder or a path with "..", is a plain-text 404.
func (l *Local) Handler() http.Handler {
	return http.HandlerFunc(l.serve)
}

func (l *Local) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		plainError(w, http.StatusMethodNotAllowed, "only GET and HEAD are allowed here\n")
		return
	}
	rel := strings.TrimPrefix(r.URL.Path, "/")
	key := PublicPrefix + rel
	if rel == "" || ValidKey(key) != nil {
		plainError(w, http.StatusNotFound, "not found\n")
		return
	}
	f, obj, err := l.open(r.Context(), key)
	if errors.Is(err, ErrNotFound) {
		plainError(w, http.StatusNotFound, "not found\n")
		return
	}
	if err != nil {
		slog.Error("a stored file could not be served", "key", key, "err", err)
		plainError(w, http.StatusInternalServerError, "the stored file could not be read\n")
		return
	}
	defer f.Close()

	h := w.Header()
	h.Set("Content-Type", obj.ContentType)
	h.Set("ETag", `"`+obj.ETag+`"`)
	h.Set("Cache-Control", publicCacheControl)
	// Stored files come from arbitrary web pages; never let a browser guess
	// a more dangerous type than the one recorded.
	h.Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, "", obj.Modified, f)
}

func plainError(w http.ResponseWriter, status int, body string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	// A missing file may be stored a moment later; do not let caches keep
	// the miss.
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write([]byte(body))
}
