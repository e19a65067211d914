package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"path"
	"strings"
	"time"
)

// PublicPrefix is the only part of the key space anyone may read without
// going through glimpse: the S3 bucket policy and the local handler both
// expose it and nothing else. Cache entries live under "cache/".
const PublicPrefix = "files/"

// MaxKeyLength bounds a key so that, with the suffixes the local store adds
// for temporary and metadata files, every path stays within the limits of
// common filesystems and of S3 (1024 bytes).
const MaxKeyLength = 512

// maxSegmentLength keeps each path element well under the 255-byte file name
// limit of ext4 and friends, leaving room for the "~tmp…" and "~meta" suffixes.
const maxSegmentLength = 200

// publicCacheControl is what public objects are served with: a key names one
// immutable rendering, so caches may keep it for a year.
const publicCacheControl = "public, max-age=31536000, immutable"

// Object describes a stored blob. ETag is given without quotes.
type Object struct {
	Key         string
	Size        int64
	ContentType string
	ETag        string
	Modified    time.Time
}

// Store is where glimpse keeps blobs.
type Store interface {
	// Put streams r under key (never holding it whole in memory: local → temp
	// file in the same dir then rename; S3 → multipart with a small part size
	// when size is unknown). On any error nothing (no partial object, no temp
	// file) is left behind. size may be -1; otherwise r must yield exactly
	// size bytes. An empty contentType is derived from the key's extension.
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) (Object, error)
	// Get returns the object's bytes; the caller closes them. ErrNotFound.
	Get(ctx context.Context, key string) (io.ReadCloser, Object, error)
	// Stat describes the object without reading it. ErrNotFound.
	Stat(ctx context.Context, key string) (Object, error)
	// Delete removes the object; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// URL is the stable public address of a public key (under PublicPrefix),
	// fetchable without glimpse answering it for S3 (bucket or CDN base),
	// served by glimpse itself for the local store. It is "" for a key that
	// is not public or not valid.
	URL(key string) string
	// Ping checks that the store is reachable and usable, bounded by ctx.
	Ping(ctx context.Context) error
	// Kind is "s3" or "local".
	Kind() string
}

var (
	// ErrNotFound means no object is stored under the key.
	ErrNotFound = errors.New("storage: no object is stored under this key")
	// ErrUnavailable means the store could not be reached (connection
	// refused, timed out, directory gone), as opposed to a request it refused.
	ErrUnavailable = errors.New("storage is unreachable")
	// ErrInvalidKey means the key breaks the rules of ValidKey.
	ErrInvalidKey = errors.New("storage: invalid key")
)

// storeError carries an operator-readable sentence, the sentinel a caller
// tests with errors.Is, and the underlying cause.
type storeError struct {
	msg  string
	kind error
	err  error
}

func (e *storeError) Error() string {
	if e.err == nil {
		return e.msg
	}
	return e.msg + ": " + e.err.Error()
}

func (e *storeError) Is(target error) bool { return e.kind != nil && target == e.kind }

func (e *storeError) Unwrap() error { return e.err }

func notFound(key string) error {
	return &storeError{msg: fmt.Sprintf("storage: nothing is stored under %q", key), kind: ErrNotFound}
}

func unavailable(msg string, err error) error {
	return &storeError{msg: msg, kind: ErrUnavailable, err: err}
}

// ValidKey reports whether key may be used with a Store. Keys are relative
// slash-separated paths of [A-Za-z0-9/._-], at most MaxKeyLength bytes, with
// no empty, "." or ".." elements and no ".." anywhere; the same rules keep a
// key inside the local directory and inside PublicPrefix when served.
func ValidKey(key string) error {
	bad := func(why string) error {
		return &storeError{msg: fmt.Sprintf("storage: the key %q %s", key, why), kind: ErrInvalidKey}
	}
	switch {
	case key == "":
		return bad("is empty")
	case len(key) > MaxKeyLength:
		return bad(fmt.Sprintf("is %d bytes long, more than the limit of %d", len(key), MaxKeyLength))
	case strings.HasPrefix(key, "/"):
		return bad("starts with a slash; keys are relative, such as files/ab/cd.pdf")
	case strings.HasSuffix(key, "/"):
		return bad("ends with a slash; a key names an object, not a folder")
	case strings.Contains(key, ".."):
		return bad(`contains ".."`)
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '.' || c == '_' || c == '-') {
			return bad(fmt.Sprintf("contains %q at byte %d; only A-Z a-z 0-9 / . _ - are allowed", c, i))
		}
	}
	for seg := range strings.SplitSeq(key, "/") {
		switch {
		case seg == "":
			return bad("contains an empty path element (//)")
		case seg == ".":
			return bad(`contains a "." path element`)
		case len(seg) > maxSegmentLength:
			return bad(fmt.Sprintf("has a path element of %d bytes, more than the limit of %d", len(seg), maxSegmentLength))
		}
	}
	return nil
}

// IsPublic reports whether key lies under PublicPrefix and may be fetched
// by anyone through URL.
func IsPublic(key string) bool {
	return strings.HasPrefix(key, PublicPrefix) && len(key) > len(PublicPrefix)
}

// contentTypeFor keeps the caller's content type, or guesses one from the
// key's extension so that a public PDF is never served as octet-stream.
func contentTypeFor(key, contentType string) string {
	if contentType != "" {
		return contentType
	}
	if t := mime.TypeByExtension(path.Ext(key)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// cacheControlFor is stored with public objects so that a bucket or CDN
// serves them with the same caching as the local handler.
func cacheControlFor(key string) string {
	if IsPublic(key) {
		return publicCacheControl
	}
	return ""
}

// readError marks a failure of the caller's reader, so that it is never
// mistaken for the store being unreachable.
func readError(key string, err error) error {
	return fmt.Errorf("storage: reading the data to store under %q failed: %w", key, err)
}

// sizeMismatch is returned when a reader yields more or fewer bytes than the
// size promised to Put.
func sizeMismatch(key string, want, got int64, more bool) error {
	if more {
		return fmt.Errorf("storage: the data for %q is longer than the %d bytes announced", key, want)
	}
	return fmt.Errorf("storage: the data for %q ended after %d of the %d bytes announced", key, got, want)
}
