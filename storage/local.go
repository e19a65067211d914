package storage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// File name suffixes the local store adds next to an object. "~" can never
// appear in a key (see ValidKey), so these files are unreachable through the
// Store methods and the public handler.
const (
	tempSuffix = "~tmp"
	metaSuffix = "~meta"
)

// LocalConfig configures the directory store.
type LocalConfig struct {
	// Dir holds the objects; it is created if missing.
	Dir string
	// PublicBaseURL is the address stored files are fetched from; see
	// PublicURL. Handler is mounted at /files/ of glimpse's own address.
	PublicBaseURL string

	// The sweeper keeps the directory bounded; see Sweep. Objects are aged
	// by the time they were last written.

	// MaxAge is how long an object under cache/ or files/ is kept: at least
	// as long as the longest-lived cached answer that may name it. Zero
	// means DefaultMaxAge; a negative value keeps objects whatever their
	// age.
	MaxAge time.Duration
	// MaxBytes is the budget of the whole directory, metadata and
	// temporary files included: above it, the sweeper deletes objects
	// oldest first. Zero means no budget.
	MaxBytes int64
	// MinAge is a grace period: no object younger than it is ever swept,
	// for age or for the budget, so that a file is not deleted under the
	// answer that was just stored to name it. Zero means DefaultMinAge.
	MinAge time.Duration
	// SweepEvery is how often the directory is swept in the background;
	// the first sweep runs at once. Zero means DefaultSweepEvery; a
	// negative value starts no background sweeping, leaving it to callers
	// of Sweep.
	SweepEvery time.Duration
}

// Local stores objects as files under one directory, each with a small
// "~meta" JSON file beside it that keeps the content type. Every file access
// goes through an os.Root, so neither a key nor a symbolic link planted in
// the directory can reach outside it.
type Local struct {
	dir  string // absolute, for messages
	root *os.Root
	base string // PublicBaseURL ending in "/"

	sweeper
	closeOnce sync.Once
	closeErr  error
}

// localMeta is the content of a "~meta" file. Size ties it to the data it
// was written with: a meta file whose size disagrees is ignored.
type localMeta struct {
	ContentType string `json:"contentType"`
	Size        int64  `json:"size"`
}

var _ Store = (*Local)(nil)

// NewLocal creates cfg.Dir if needed and opens it as a store.
func NewLocal(cfg LocalConfig) (*Local, error) {
	if cfg.Dir == "" {
		return nil, errors.New("storage: no directory was given for local storage")
	}
	base, err := parseBaseURL(cfg.PublicBaseURL)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("storage: the storage directory %q cannot be resolved: %w", cfg.Dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("storage: could not create the storage directory %s: %w", dir, err)
	}
	policy, err := newSweepPolicy(cfg)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("storage: could not open the storage directory %s: %w", dir, err)
	}
	l := &Local{dir: dir, root: root, base: base}
	l.startSweeper(policy)
	return l, nil
}

// parseBaseURL checks that a public base URL is absolute and returns it with
// a trailing slash.
func parseBaseURL(raw string) (string, error) {
	if raw == "" {
		return "", errors.New("storage: no public base URL was given; it is the address stored files are fetched from, such as http://localhost:3000")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("storage: the public base URL %q must be an absolute http:// or https:// URL without query, such as http://localhost:3000", raw)
	}
	if !strings.HasSuffix(raw, "/") {
		raw += "/"
	}
	return raw, nil
}

// PublicURL is the address of a public key below a public base URL (one
// ending in "/"): base + key. glimpse itself, a CDN in front of it and a
// bucket all serve files/ab/c.pdf below their root, so one rule fits each:
// https://glimpse.example.com gives https://glimpse.example.com/files/ab/c.pdf.
// A base that already ends in /files/ names that folder, and the key's
// prefix is not repeated.
func PublicURL(base, key string) string {
	if strings.HasSuffix(base, "/"+PublicPrefix) {
		return base + strings.TrimPrefix(key, PublicPrefix)
	}
	return base + key
}

// Close stops the background sweeper, waiting for a sweep in progress to
// give up, and releases the directory handle. Later calls do nothing.
func (l *Local) Close() error {
	l.closeOnce.Do(func() {
		l.stopSweeper()
		l.closeErr = l.root.Close()
	})
	return l.closeErr
}

// Dir is the absolute path of the storage directory.
func (l *Local) Dir() string { return l.dir }

// Kind is "local".
func (l *Local) Kind() string { return "local" }

// URL returns the address Handler serves key at, or "" when key is not a
// valid public key.
func (l *Local) URL(key string) string {
	if ValidKey(key) != nil || !IsPublic(key) {
		return ""
	}
	return PublicURL(l.base, key)
}

// Put writes r to a temporary file beside the final one and renames it into
// place, so readers see either the old object or the new one, never a part.
func (l *Local) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) (Object, error) {
	if err := ValidKey(key); err != nil {
		return Object{}, err
	}
	if size < -1 {
		return Object{}, fmt.Errorf("storage: the size %d given for %q is not valid; give the length in bytes, or -1 when it is unknown", size, key)
	}
	if err := ctx.Err(); err != nil {
		return Object{}, fmt.Errorf("storage: storing %q was abandoned: %w", key, err)
	}
	contentType = contentTypeFor(key, contentType)
	name := filepath.FromSlash(key)
	if dir := filepath.Dir(name); dir != "." {
		if err := l.root.MkdirAll(dir, 0o755); err != nil {
			return Object{}, fmt.Errorf("storage: could not create the folder for %q in %s: %w", key, l.dir, err)
		}
	}

	data, dataName, err := l.createTemp(name)
	if err != nil {
		return Object{}, fmt.Errorf("storage: could not create a file for %q in %s: %w", key, l.dir, err)
	}
	var metaName string
	committed := false
	defer func() {
		if committed {
			return
		}
		data.Close()
		l.root.Remove(dataName)
		if metaName != "" {
			l.root.Remove(metaName)
		}
	}()

	src := &trackedReader{r: &ctxReader{ctx: ctx, r: r}}
	var in io.Reader = src
	if size >= 0 {
		// One byte more than announced is enough to tell an over-long reader.
		in = io.LimitReader(src, size+1)
	}
	n, err := io.Copy(data, in)
	switch {
	case src.err != nil:
		return Object{}, readError(key, src.err)
	case err != nil:
		return Object{}, fmt.Errorf("storage: writing %q to %s failed: %w", key, l.dir, err)
	case size >= 0 && n != size:
		return Object{}, sizeMismatch(key, size, n, n > size)
	}
	// Without the sync, a crash right after the rename can leave an empty or
	// torn file under a key that was reported as stored.
	if err := data.Sync(); err != nil {
		return Object{}, fmt.Errorf("storage: writing %q to %s failed: %w", key, l.dir, err)
	}
	info, err := data.Stat()
	if err != nil {
		return Object{}, fmt.Errorf("storage: writing %q to %s failed: %w", key, l.dir, err)
	}
	if err := data.Close(); err != nil {
		return Object{}, fmt.Errorf("storage: writing %q to %s failed: %w", key, l.dir, err)
	}

	metaName, err = l.writeMetaTemp(name, localMeta{ContentType: contentType, Size: n})
	if err != nil {
		return Object{}, fmt.Errorf("storage: writing the metadata of %q to %s failed: %w", key, l.dir, err)
	}
	if err := ctx.Err(); err != nil {
		return Object{}, fmt.Errorf("storage: storing %q was abandoned: %w", key, err)
	}
	// The meta file goes first: a reader that sees the new data then also
	// sees its content type, and a stale meta file is caught by its size.
	if err := l.root.Rename(metaName, name+metaSuffix); err != nil {
		return Object{}, fmt.Errorf("storage: could not move the metadata of %q into place in %s: %w", key, l.dir, err)
	}
	metaName = ""
	if err := l.root.Rename(dataName, name); err != nil {
		return Object{}, fmt.Errorf("storage: could not move %q into place in %s: %w", key, l.dir, err)
	}
	committed = true
	l.written(n)
	return Object{Key: key, Size: n, ContentType: contentType, ETag: localETag(info), Modified: info.ModTime().UTC()}, nil
}

// createTemp opens a new file beside name whose name no key can address.
func (l *Local) createTemp(name string) (*os.File, string, error) {
	for range 10 {
		var b [8]byte
		rand.Read(b[:])
		tmp := name + tempSuffix + hex.EncodeToString(b[:])
		f, err := l.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, tmp, err
	}
	return nil, "", errors.New("could not find an unused temporary file name")
}

func (l *Local) writeMetaTemp(name string, m localMeta) (string, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	f, tmp, err := l.createTemp(name + metaSuffix)
	if err != nil {
		return "", err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		l.root.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// Get opens the object for reading.
func (l *Local) Get(ctx context.Context, key string) (io.ReadCloser, Object, error) {
	f, obj, err := l.open(ctx, key)
	if err != nil {
		return nil, Object{}, err
	}
	return f, obj, nil
}

// open is Get with the concrete file, which Handler needs for seeking.
func (l *Local) openSeeker(ctx context.Context, key string) (io.ReadSeekCloser, Object, error) {
	return l.open(ctx, key)
}

func (l *Local) open(ctx context.Context, key string) (*os.File, Object, error) {
	if err := ValidKey(key); err != nil {
		return nil, Object{}, err
	}
	if err := ctx.Err(); err != nil {
		return nil, Object{}, fmt.Errorf("storage: reading %q was abandoned: %w", key, err)
	}
	name := filepath.FromSlash(key)
	f, err := l.root.Open(name)
	if err != nil {
		return nil, Object{}, l.readFailure(key, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, Object{}, l.readFailure(key, err)
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, Object{}, notFound(key)
	}
	return f, l.describe(key, name, info), nil
}

// Stat describes the object without opening it.
func (l *Local) Stat(ctx context.Context, key string) (Object, error) {
	if err := ValidKey(key); err != nil {
		return Object{}, err
	}
	if err := ctx.Err(); err != nil {
		return Object{}, fmt.Errorf("storage: looking up %q was abandoned: %w", key, err)
	}
	name := filepath.FromSlash(key)
	info, err := l.root.Stat(name)
	if err != nil {
		return Object{}, l.readFailure(key, err)
	}
	if !info.Mode().IsRegular() {
		return Object{}, notFound(key)
	}
	return l.describe(key, name, info), nil
}

func (l *Local) describe(key, name string, info fs.FileInfo) Object {
	obj := Object{Key: key, Size: info.Size(), ETag: localETag(info), Modified: info.ModTime().UTC()}
	var m localMeta
	if b, err := l.root.ReadFile(name + metaSuffix); err == nil && json.Unmarshal(b, &m) == nil && m.Size == info.Size() {
		obj.ContentType = m.ContentType
	}
	obj.ContentType = contentTypeFor(key, obj.ContentType)
	return obj
}

// localETag changes whenever the file is replaced: every Put writes a new
// file, so its modification time (in nanoseconds) and size identify it.
func localETag(info fs.FileInfo) string {
	return fmt.Sprintf("%x-%x", info.ModTime().UnixNano(), info.Size())
}

func (l *Local) readFailure(key string, err error) error {
	// ENOTDIR: a key such as a.pdf/b where a.pdf is a file names nothing.
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return notFound(key)
	}
	if strings.Contains(err.Error(), "path escapes from parent") {
		return fmt.Errorf("storage: could not read %q from %s, because a symbolic link on its path leads out of that directory; links must stay inside it: %w", key, l.dir, err)
	}
	return fmt.Errorf("storage: could not read %q from %s: %w", key, l.dir, err)
}

// Delete removes the object and its metadata; a missing key is not an error.
func (l *Local) Delete(ctx context.Context, key string) error {
	if err := ValidKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("storage: deleting %q was abandoned: %w", key, err)
	}
	name := filepath.FromSlash(key)
	info, err := l.root.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return nil
	case err != nil:
		return fmt.Errorf("storage: could not delete %q from %s: %w", key, l.dir, err)
	case info.IsDir():
		// A folder of other keys, not an object.
		return nil
	}
	if err := l.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("storage: could not delete %q from %s: %w", key, l.dir, err)
	}
	if err := l.root.Remove(name + metaSuffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("storage: could not delete the metadata of %q from %s: %w", key, l.dir, err)
	}
	return nil
}

// Ping proves the directory is still there and writable by creating and
// removing a probe file. The probe runs apart from the caller so that a hung
// filesystem (a stale network mount) cannot hold a readiness check past ctx.
func (l *Local) Ping(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- l.probe() }()
	select {
	case err := <-done:
		if err != nil {
			return unavailable(fmt.Sprintf("storage: the storage directory %s is not usable", l.dir), err)
		}
		return nil
	case <-ctx.Done():
		return unavailable(fmt.Sprintf("storage: the storage directory %s did not answer in time", l.dir), ctx.Err())
	}
}

func (l *Local) probe() error {
	f, name, err := l.createTemp("ping")
	if err != nil {
		return err
	}
	err = f.Close()
	if rerr := l.root.Remove(name); err == nil {
		err = rerr
	}
	return err
}

// ctxReader stops a copy once ctx ends, between two reads of the source.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// trackedReader remembers the source's own error, so that a failing reader
// is told apart from a failing disk after io.Copy.
type trackedReader struct {
	r   io.Reader
	err error
}

func (t *trackedReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF {
		t.err = err
	}
	return n, err
}
