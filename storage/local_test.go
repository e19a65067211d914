package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestNewLocalRejectsBadConfiguration(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		cfg     LocalConfig
		wantErr string
	}{
		{"a missing directory setting is refused", LocalConfig{PublicBaseURL: "http://localhost:3000/files/"}, "no directory"},
		{"a missing public base URL is refused", LocalConfig{Dir: t.TempDir()}, "no public base URL"},
		{"a relative public base URL is refused", LocalConfig{Dir: t.TempDir(), PublicBaseURL: "/files/"}, "absolute http:// or https:// URL"},
		{"a public base URL of another scheme is refused", LocalConfig{Dir: t.TempDir(), PublicBaseURL: "ftp://host/files/"}, "absolute http:// or https:// URL"},
		{"a public base URL with a query is refused", LocalConfig{Dir: t.TempDir(), PublicBaseURL: "http://host/files/?a=b"}, "without query"},
		{"a directory below a file is refused", LocalConfig{Dir: filepath.Join(file, "data"), PublicBaseURL: "http://localhost:3000/files/"}, "could not create the storage directory"},
		{"a negative byte budget is refused", LocalConfig{Dir: t.TempDir(), PublicBaseURL: "http://localhost:3000/files/", MaxBytes: -1}, "or 0 for no budget"},
		{"a negative grace period is refused", LocalConfig{Dir: t.TempDir(), PublicBaseURL: "http://localhost:3000/files/", MinAge: -time.Second}, "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := NewLocal(tt.cfg)
			if err == nil {
				l.Close()
				t.Fatal("NewLocal succeeded; want an error")
			}
			if !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "storage: ") {
				t.Errorf("NewLocal error = %q; want a storage sentence saying %q", err, tt.wantErr)
			}
		})
	}
}

func TestLocalURL(t *testing.T) {
	tests := []struct {
		name    string
		base    string
		key     string
		wantURL string
	}{
		{"glimpse's own address gets the files/ folder it serves them from", "https://glimpse.example.com", "files/ab/c.pdf", "https://glimpse.example.com/files/ab/c.pdf"},
		{"a base that names the files/ folder does not repeat it", "http://localhost:3000/files/", "files/ab/c.pdf", "http://localhost:3000/files/ab/c.pdf"},
		{"a CDN under a path prefix keeps its prefix", "https://cdn.example.com/glimpse", "files/c.pdf", "https://cdn.example.com/glimpse/files/c.pdf"},
		{"a base at the root with a trailing slash", "http://127.0.0.1:8080/", "files/c.pdf", "http://127.0.0.1:8080/files/c.pdf"},
		{"a cache key has no URL", "http://localhost:3000", "cache/c", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := NewLocal(LocalConfig{Dir: t.TempDir(), PublicBaseURL: tt.base})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if got := l.URL(tt.key); got != tt.wantURL {
				t.Errorf("URL(%q) = %q; want %q", tt.key, got, tt.wantURL)
			}
		})
	}
}

// TestFileHandler serves both stores the way the orchestrator mounts them,
// under /files/: the S3 one for buckets unreachable from outside.
func TestFileHandler(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			s := kind.open(t)
			mux := http.NewServeMux()
			mux.Handle("/"+PublicPrefix, http.StripPrefix("/"+PublicPrefix, FileHandler(s)))
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)
			testFileHandler(t, s, srv)
		})
	}
}

func testFileHandler(t *testing.T, l Store, srv *httptest.Server) {
	doc := pdfLike(10000)
	obj := mustPut(t, l, "files/ab/doc.pdf", doc, "application/pdf")
	mustPut(t, l, "files/shot.png", pdfLike(300), "")
	mustPut(t, l, "cache/entry", []byte(`{"secret":true}`), "application/json")
	etag := `"` + obj.ETag + `"`

	tests := []struct {
		name       string
		method     string
		path       string
		header     http.Header
		wantStatus int
		wantBody   []byte // nil: not checked
		wantHeader map[string]string
	}{
		{
			name: "a stored PDF is served whole with its type, length, ETag and a year of caching",
			path: "/files/ab/doc.pdf", wantStatus: 200, wantBody: doc,
			wantHeader: map[string]string{
				"Content-Type":           "application/pdf",
				"Content-Length":         strconv.Itoa(len(doc)),
				"Etag":                   etag,
				"Cache-Control":          "public, max-age=31536000, immutable",
				"X-Content-Type-Options": "nosniff",
				"Accept-Ranges":          "bytes",
			},
		},
		{
			name: "a screenshot stored without a type is served as its extension says",
			path: "/files/shot.png", wantStatus: 200,
			wantHeader: map[string]string{"Content-Type": "image/png"},
		},
		{
			name: "HEAD answers the headers without the body", method: http.MethodHead,
			path: "/files/ab/doc.pdf", wantStatus: 200, wantBody: []byte{},
			wantHeader: map[string]string{"Content-Length": strconv.Itoa(len(doc)), "Content-Type": "application/pdf", "Etag": etag},
		},
		{
			name: "a range request gets 206 and just those bytes",
			path: "/files/ab/doc.pdf", header: http.Header{"Range": {"bytes=100-199"}},
			wantStatus: 206, wantBody: doc[100:200],
			wantHeader: map[string]string{"Content-Range": "bytes 100-199/" + strconv.Itoa(len(doc)), "Content-Length": "100", "Content-Type": "application/pdf"},
		},
		{
			name: "an open-ended range gets the tail",
			path: "/files/ab/doc.pdf", header: http.Header{"Range": {"bytes=-10"}},
			wantStatus: 206, wantBody: doc[len(doc)-10:],
		},
		{
			name: "a range past the end is 416",
			path: "/files/ab/doc.pdf", header: http.Header{"Range": {"bytes=999999-"}},
			wantStatus: 416,
		},
		{
			name: "a matching If-None-Match is 304 without a body",
			path: "/files/ab/doc.pdf", header: http.Header{"If-None-Match": {etag}},
			wantStatus: 304, wantBody: []byte{},
		},
		{
			name: "a missing file is a plain-text 404 that is not cached",
			path: "/files/missing.pdf", wantStatus: 404, wantBody: []byte("not found\n"),
			wantHeader: map[string]string{"Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"},
		},
		{
			name: "a cache entry under files/ does not exist", path: "/files/cache/entry", wantStatus: 404,
		},
		{
			name: "a folder is not listed", path: "/files/ab/", wantStatus: 404, wantBody: []byte("not found\n"),
		},
		{
			name: "a folder without slash is not listed", path: "/files/ab", wantStatus: 404,
		},
		{
			name: "the root of the files is not listed", path: "/files/", wantStatus: 404,
		},
		{
			name: "the metadata file beside an object is never served", path: "/files/ab/doc.pdf~meta", wantStatus: 404,
		},
		{
			name: "a path below a file is 404", path: "/files/ab/doc.pdf/x", wantStatus: 404,
		},
		{
			name: "POST is refused", method: http.MethodPost, path: "/files/ab/doc.pdf", wantStatus: 405,
			wantHeader: map[string]string{"Allow": "GET, HEAD"},
		},
	}
	client := &http.Client{Timeout: 10 * time.Second}
	t.Cleanup(client.CloseIdleConnections)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = http.MethodGet
			}
			req, err := http.NewRequest(method, srv.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.header {
				req.Header[k] = v
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("%s %s = %d %q; want %d", method, tt.path, resp.StatusCode, body, tt.wantStatus)
			}
			if tt.wantBody != nil && !bytes.Equal(body, tt.wantBody) {
				t.Errorf("%s %s body has %d bytes; want %d", method, tt.path, len(body), len(tt.wantBody))
			}
			if bytes.Contains(body, []byte("secret")) {
				t.Errorf("%s %s leaked a cache entry", method, tt.path)
			}
			for k, want := range tt.wantHeader {
				if got := resp.Header.Get(k); got != want {
					t.Errorf("%s: %q; want %q", k, got, want)
				}
			}
		})
	}
}

// The handler must hold its ground even when mounted behind a router that
// does not clean paths, so these requests reach it unfiltered.
func TestLocalHandlerRefusesPathsOutsideFiles(t *testing.T) {
	l, _ := newLocalStore(t)
	mustPut(t, l, "cache/entry", []byte(`{"secret":true}`), "application/json")
	mustPut(t, l, "files/a.pdf", pdfLike(100), "application/pdf")
	outside := filepath.Join(filepath.Dir(l.Dir()), "outside.txt")
	if err := os.WriteFile(outside, []byte("secret outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(l.Dir(), "files", "link.pdf")); err != nil {
		t.Fatal(err)
	}

	for _, p := range []string{"/../cache/entry", "../cache/entry", "/..%2fcache%2fentry", "/%2e%2e/cache/entry", "//cache/entry", "/./a.pdf", "/../../outside.txt", "/link.pdf", ""} {
		t.Run("the path "+strconv.Quote(p)+" is not served", func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.URL.Path = p
			if decoded, err := url.PathUnescape(p); err == nil {
				req.URL.Path = decoded
			}
			rec := httptest.NewRecorder()
			l.Handler().ServeHTTP(rec, req)
			if rec.Code == http.StatusOK || strings.Contains(rec.Body.String(), "secret") {
				t.Errorf("GET %q = %d %q; want it refused", p, rec.Code, rec.Body.String())
			}
		})
	}

	t.Run("Get refuses a symbolic link that leads out of the directory", func(t *testing.T) {
		rc, _, err := l.Get(context.Background(), "files/link.pdf")
		if err == nil {
			b, _ := io.ReadAll(rc)
			rc.Close()
			t.Fatalf("Get followed the link out of the directory and read %q", b)
		}
	})
}

func TestLocalContentTypeSurvivesWithoutItsMetadata(t *testing.T) {
	l, _ := newLocalStore(t)
	ctx := context.Background()
	tests := []struct {
		name   string
		key    string
		damage func(metaPath string)
		want   string
	}{
		{"a stored type is used while its metadata file agrees", "files/a.bin", func(string) {}, "application/pdf"},
		{"a missing metadata file falls back to the extension", "files/b.pdf", func(p string) { os.Remove(p) }, "application/pdf"},
		{"a metadata file written for other data is ignored", "files/c.png", func(p string) { os.WriteFile(p, []byte(`{"contentType":"text/html","size":1}`), 0o644) }, "image/png"},
		{"a corrupt metadata file is ignored", "files/d.png", func(p string) { os.WriteFile(p, []byte(`{`), 0o644) }, "image/png"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustPut(t, l, tt.key, pdfLike(500), "application/pdf")
			tt.damage(filepath.Join(l.Dir(), filepath.FromSlash(tt.key)) + metaSuffix)
			obj, err := l.Stat(ctx, tt.key)
			if err != nil {
				t.Fatal(err)
			}
			if obj.ContentType != tt.want {
				t.Errorf("content type = %q; want %q", obj.ContentType, tt.want)
			}
		})
	}
}

func TestLocalDelete(t *testing.T) {
	l, _ := newLocalStore(t)
	ctx := context.Background()
	mustPut(t, l, "files/ab/doc.pdf", pdfLike(100), "application/pdf")

	t.Run("deleting a key that is a folder of other keys keeps them", func(t *testing.T) {
		if err := l.Delete(ctx, "files/ab"); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if _, err := l.Stat(ctx, "files/ab/doc.pdf"); err != nil {
			t.Errorf("the object below the folder is gone: %v", err)
		}
	})
	t.Run("deleting an object removes its metadata too", func(t *testing.T) {
		if err := l.Delete(ctx, "files/ab/doc.pdf"); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		entries, err := os.ReadDir(filepath.Join(l.Dir(), "files", "ab"))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			t.Errorf("%s is left after Delete", e.Name())
		}
	})
}

func TestLocalPing(t *testing.T) {
	t.Run("a store whose directory was removed is unavailable", func(t *testing.T) {
		l, _ := newLocalStore(t)
		if err := os.RemoveAll(l.Dir()); err != nil {
			t.Fatal(err)
		}
		err := l.Ping(context.Background())
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), l.Dir()) {
			t.Errorf("Ping = %v; want ErrUnavailable naming the directory", err)
		}
		if _, err := l.Put(context.Background(), "files/a.pdf", strings.NewReader("x"), 1, ""); err == nil || !strings.Contains(err.Error(), l.Dir()) {
			t.Errorf("Put = %v; want an error naming the directory", err)
		}
	})
	t.Run("a ping leaves no probe file behind", func(t *testing.T) {
		l, _ := newLocalStore(t)
		for range 3 {
			if err := l.Ping(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		entries, _ := os.ReadDir(l.Dir())
		for _, e := range entries {
			t.Errorf("%s is left after Ping", e.Name())
		}
	})
	t.Run("an ended context is reported, not waited on", func(t *testing.T) {
		l, _ := newLocalStore(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		// The probe may still win the race against the ended context; both
		// answers are fine, but a wait is not.
		done := make(chan error, 1)
		go func() { done <- l.Ping(ctx) }()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, ErrUnavailable) {
				t.Errorf("Ping = %v; want nil or ErrUnavailable", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Ping with an ended context did not return")
		}
	})
}

// A file where a key's folder should be is a conflict the store reports,
// however often it looks again: the folder wanted is not there.
func TestLocalPutReportsAFileInThePlaceOfItsFolder(t *testing.T) {
	l, err := NewLocal(LocalConfig{Dir: t.TempDir(), PublicBaseURL: "http://localhost:3000", SweepEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Put(context.Background(), "files/shot", strings.NewReader("a file"), 6, "text/plain"); err != nil {
		t.Fatal(err)
	}
	_, err = l.Put(context.Background(), "files/shot/page.png", strings.NewReader("png"), 3, "image/png")
	if err == nil || !strings.Contains(err.Error(), "could not create the folder") {
		t.Errorf("storing under a file gave %v, want the folder that could not be created", err)
	}
}

// Puts that make the same new folders at once all succeed: the folder one
// of them made is the folder the others wanted.
func TestLocalPutsMakingTheSameFolderAtOnceAllSucceed(t *testing.T) {
	for round := range 50 {
		l, err := NewLocal(LocalConfig{Dir: t.TempDir(), PublicBaseURL: "http://localhost:3000", SweepEvery: -1})
		if err != nil {
			t.Fatal(err)
		}
		start := make(chan struct{})
		errs := make(chan error, 8)
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				<-start
				_, err := l.Put(context.Background(), fmt.Sprintf("files/shot/%d.png", i), strings.NewReader("png"), 3, "image/png")
				errs <- err
			})
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		l.Close()
	}
}
