package storage

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
)

// opener is a store whose objects can be read with seeking, so the file
// handler can answer Range requests: the local directory and S3 both are.
type opener interface {
	openSeeker(ctx context.Context, key string) (io.ReadSeekCloser, Object, error)
}

// Handler serves the public objects of the local store; see FileHandler.
func (l *Local) Handler() http.Handler { return fileHandler{l} }

// Handler serves the public objects of the bucket through glimpse, for
// deployments whose bucket is private or unreachable from outside; see
// FileHandler.
func (s *S3) Handler() http.Handler { return fileHandler{s} }

// FileHandler serves a store's public objects: mount it at "/"+PublicPrefix
// with that prefix stripped, so that the request path is the key without
// PublicPrefix. It answers GET and HEAD with the stored content type,
// Content-Length, ETag, Range and conditional requests, and a year of
// immutable caching; anything that is not a stored public object, such as a
// cache entry, a folder or a path with "..", is a plain-text 404. It is nil
// for a store it cannot read with seeking.
func FileHandler(s Store) http.Handler {
	o, ok := s.(opener)
	if !ok {
		return nil
	}
	return fileHandler{o}
}

type fileHandler struct{ store opener }

func (h fileHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	f, obj, err := h.store.openSeeker(r.Context(), key)
	switch {
	case errors.Is(err, ErrNotFound):
		plainError(w, http.StatusNotFound, "not found\n")
		return
	case errors.Is(err, ErrUnavailable):
		slog.Error("a stored file could not be served: storage is unreachable", "key", key, "err", err)
		w.Header().Set("Retry-After", "5")
		plainError(w, http.StatusServiceUnavailable, "storage is unreachable; try again shortly\n")
		return
	case err != nil:
		slog.Error("a stored file could not be served", "key", key, "err", err)
		plainError(w, http.StatusInternalServerError, "the stored file could not be read\n")
		return
	}
	defer f.Close()

	hd := w.Header()
	hd.Set("Content-Type", obj.ContentType)
	hd.Set("ETag", `"`+obj.ETag+`"`)
	hd.Set("Cache-Control", publicCacheControl)
	// Stored files come from arbitrary web pages; never let a browser guess
	// a more dangerous type than the one recorded.
	hd.Set("X-Content-Type-Options", "nosniff")
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
