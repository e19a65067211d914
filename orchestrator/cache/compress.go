package cache

import (
	"bytes"
	"compress/gzip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/andybalholm/brotli"
)

// minCompressBytes is the size below which compression costs more than it
// saves.
const minCompressBytes = 1024

// encoded holds an entry's body compressed once, so that a cache hit
// never compresses again.
type encoded struct {
	gzipOnce, brOnce sync.Once
	gzip, br         []byte
	// cache is the cache that keeps the entry, told of what compression
	// adds; counted is that, guarded by the cache's lock.
	cache   atomic.Pointer[Cache]
	counted int64
}

// made tells the keeping cache that a compressed body of n bytes is kept.
func (e *Entry) made(n int) {
	if c := e.enc.cache.Load(); c != nil {
		c.grown(e, n)
	}
}

func (e *Entry) gzipBody() []byte {
	e.enc.gzipOnce.Do(func() {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		_, _ = w.Write(e.Body)
		_ = w.Close()
		e.enc.gzip = b.Bytes()
		e.made(len(e.enc.gzip))
	})
	return e.enc.gzip
}

func (e *Entry) brotliBody() []byte {
	e.enc.brOnce.Do(func() {
		var b bytes.Buffer
		w := brotli.NewWriterLevel(&b, 9)
		_, _ = w.Write(e.Body)
		_ = w.Close()
		e.enc.br = b.Bytes()
		e.made(len(e.enc.br))
	})
	return e.enc.br
}

// PickEncoding chooses br over gzip when the client accepts both; q=0
// refuses a coding.
func PickEncoding(acceptEncoding string) string {
	var br, gz bool
	for _, part := range strings.Split(acceptEncoding, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if refused(params) {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "br":
			br = true
		case "gzip", "x-gzip":
			gz = true
		case "*":
			br = true
		}
	}
	switch {
	case br:
		return "br"
	case gz:
		return "gzip"
	}
	return ""
}

// refused reports a quality of zero ("q=0", "q=0.0", "q=0.000").
func refused(params string) bool {
	for _, p := range strings.Split(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return err == nil && q == 0
	}
	return false
}

// Encoded returns the entry's body in the coding the client asked for:
// "br", "gzip", or "" for the body as it is.
func (e *Entry) Encoded(acceptEncoding string) (b []byte, coding string) {
	if len(e.Body) < minCompressBytes {
		return e.Body, ""
	}
	switch PickEncoding(acceptEncoding) {
	case "br":
		return e.brotliBody(), "br"
	case "gzip":
		return e.gzipBody(), "gzip"
	}
	return e.Body, ""
}
