package storage

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/glimpse/glimpse/storage/miniotest"
)

// shared is one MinIO server for the whole package, started by the first
// test that needs it; each test gets a bucket of its own on it. Tests that
// stop the server start their own with miniotest.New.
var shared struct {
	once sync.Once
	srv  *miniotest.Server
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.srv != nil {
		shared.srv.Close()
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goroutines were left running after the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

func sharedMinio(t *testing.T) *miniotest.Server {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a MinIO server; skipped with -short")
	}
	shared.once.Do(func() { shared.srv, shared.err = miniotest.Launch() })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.srv
}

// newS3Store returns a store on a fresh bucket of srv.
func newS3Store(t *testing.T, srv *miniotest.Server) *S3 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := NewS3(ctx, S3Config{
		Endpoint:  srv.Endpoint,
		Bucket:    "t-" + randomHex(8),
		AccessKey: srv.AccessKey,
		SecretKey: srv.SecretKey,
	})
	if err != nil {
		t.Fatalf("NewS3: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// newLocalStore returns a store on a fresh directory, with its handler
// mounted the way the orchestrator mounts it, under /files/.
func newLocalStore(t *testing.T) (*Local, *httptest.Server) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	l, err := NewLocal(LocalConfig{Dir: filepath.Join(t.TempDir(), "data"), PublicBaseURL: srv.URL + "/files/"})
	if err != nil {
		t.Fatalf("NewLocal: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	mux.Handle("/"+PublicPrefix, http.StripPrefix("/"+PublicPrefix, l.Handler()))
	return l, srv
}

// storeKinds lists both implementations for table tests; the S3 one skips
// itself under -short.
var storeKinds = []struct {
	name string
	open func(t *testing.T) Store
}{
	{"local", func(t *testing.T) Store { l, _ := newLocalStore(t); return l }},
	{"s3", func(t *testing.T) Store { return newS3Store(t, sharedMinio(t)) }},
}

// assertNothingLeft checks that a failed Put left neither an object, nor a
// temporary file, nor an unfinished multipart upload.
func assertNothingLeft(t *testing.T, s Store, key string) {
	t.Helper()
	ctx := context.Background()
	if obj, err := s.Stat(ctx, key); !errors.Is(err, ErrNotFound) {
		t.Errorf("after a failed Put, Stat(%q) = %+v, %v; want ErrNotFound", key, obj, err)
	}
	switch s := s.(type) {
	case *Local:
		filepath.WalkDir(s.Dir(), func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.Contains(d.Name(), "~") {
				t.Errorf("after a failed Put, %s is left in the storage directory", d.Name())
			}
			return nil
		})
	case *S3:
		for u := range s.client.ListIncompleteUploads(ctx, s.bucket, key, true) {
			if u.Err != nil {
				t.Errorf("listing unfinished uploads: %v", u.Err)
				continue
			}
			t.Errorf("after a failed Put, an unfinished upload of %q (id %s) is left in the bucket", u.Key, u.UploadID)
		}
	}
}

func mustPut(t *testing.T, s Store, key string, data []byte, contentType string) Object {
	t.Helper()
	obj, err := s.Put(context.Background(), key, strings.NewReader(string(data)), int64(len(data)), contentType)
	if err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
	return obj
}

func mustRead(t *testing.T, s Store, key string) []byte {
	t.Helper()
	rc, _, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("reading %q: %v", key, err)
	}
	return b
}

// fetch GETs url as an anonymous client that knows nothing of glimpse.
func fetch(t *testing.T, url string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body of %s: %v", url, err)
	}
	return resp, body
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// pdfLike is a small document that looks like what Chromium prints.
func pdfLike(n int) []byte {
	head := "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
	b := make([]byte, n)
	rand.Read(b)
	copy(b, head)
	return b
}

// pattern is a reader of n pseudo-random bytes that hashes what it hands
// out, so a 50 MB stream can be checked without keeping it. every, when
// set, runs after each step bytes, to sample memory during a Put.
type pattern struct {
	n, off int64
	block  []byte
	sum    hash.Hash
	step   int64
	every  func()
}

func newPattern(n int64) *pattern {
	block := make([]byte, 64<<10+13) // an odd length, so parts never repeat exactly
	rand.Read(block)
	return &pattern{n: n, block: block, sum: sha256.New()}
}

func (p *pattern) Read(b []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	if rest := p.n - p.off; int64(len(b)) > rest {
		b = b[:rest]
	}
	n := 0
	for n < len(b) {
		n += copy(b[n:], p.block[(p.off+int64(n))%int64(len(p.block)):])
	}
	p.sum.Write(b)
	if p.every != nil && p.step > 0 && (p.off+int64(n))/p.step != p.off/p.step {
		p.every()
	}
	p.off += int64(n)
	return n, nil
}

// failing yields n bytes and then err, as a render that dies midway would.
type failing struct {
	r   io.Reader
	err error
}

func failAfter(n int64, err error) *failing {
	return &failing{r: io.LimitReader(newPattern(n), n), err: err}
}

func (f *failing) Read(b []byte) (int, error) {
	n, err := f.r.Read(b)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}
