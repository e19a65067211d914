package storage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name        string
		key         string
		data        []byte
		knownSize   bool
		contentType string
		wantType    string
	}{
		{"a PDF of known size is stored and read back", "files/ab/doc.pdf", pdfLike(20 << 10), true, "application/pdf", "application/pdf"},
		{"a screenshot of unknown size gets its type from the extension", "files/cd/shot.png", pdfLike(3 << 10), false, "", "image/png"},
		{"an empty cache entry is stored", "cache/empty", nil, true, "application/json", "application/json"},
		{"a cache entry of unknown size without extension is octet-stream", "cache/ab/entry", pdfLike(700), false, "", "application/octet-stream"},
		{"an object of exactly one part of unknown size is stored", "files/one-part.pdf", pdfLike(partSize), false, "application/pdf", "application/pdf"},
		{"an object larger than one part of known size is stored in parts", "files/big.pdf", pdfLike(2*partSize + 7), true, "application/pdf", "application/pdf"},
		{"an object larger than one part of unknown size is stored in parts", "files/big2.pdf", pdfLike(partSize + 1), false, "application/pdf", "application/pdf"},
	}
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			s := kind.open(t)
			ctx := context.Background()
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					size := int64(-1)
					if tt.knownSize {
						size = int64(len(tt.data))
					}
					put, err := s.Put(ctx, tt.key, bytes.NewReader(tt.data), size, tt.contentType)
					if err != nil {
						t.Fatalf("Put: %v", err)
					}
					if put.Key != tt.key || put.Size != int64(len(tt.data)) || put.ContentType != tt.wantType || put.ETag == "" || put.Modified.IsZero() {
						t.Errorf("Put returned %+v; want key %q, size %d, type %q, an ETag and a time", put, tt.key, len(tt.data), tt.wantType)
					}

					stat, err := s.Stat(ctx, tt.key)
					if err != nil {
						t.Fatalf("Stat: %v", err)
					}
					if stat.Key != tt.key || stat.Size != put.Size || stat.ContentType != tt.wantType || stat.ETag != put.ETag {
						t.Errorf("Stat = %+v; want it to agree with Put's %+v", stat, put)
					}

					rc, got, err := s.Get(ctx, tt.key)
					if err != nil {
						t.Fatalf("Get: %v", err)
					}
					body, err := io.ReadAll(rc)
					rc.Close()
					if err != nil {
						t.Fatalf("reading: %v", err)
					}
					if !bytes.Equal(body, tt.data) {
						t.Errorf("Get returned %d bytes that differ from the %d stored", len(body), len(tt.data))
					}
					if got.ETag != put.ETag || got.Size != put.Size || got.ContentType != tt.wantType {
						t.Errorf("Get described %+v; want it to agree with Put's %+v", got, put)
					}

					replacement := pdfLike(1000)
					again := mustPut(t, s, tt.key, replacement, tt.contentType)
					if again.ETag == put.ETag {
						t.Errorf("overwriting kept the ETag %q; a changed object needs a new one", put.ETag)
					}
					if b := mustRead(t, s, tt.key); !bytes.Equal(b, replacement) {
						t.Errorf("after overwriting, Get returned the old bytes")
					}

					if err := s.Delete(ctx, tt.key); err != nil {
						t.Fatalf("Delete: %v", err)
					}
					if _, err := s.Stat(ctx, tt.key); !errors.Is(err, ErrNotFound) {
						t.Errorf("Stat after Delete: %v; want ErrNotFound", err)
					}
					if _, _, err := s.Get(ctx, tt.key); !errors.Is(err, ErrNotFound) {
						t.Errorf("Get after Delete: %v; want ErrNotFound", err)
					}
					if err := s.Delete(ctx, tt.key); err != nil {
						t.Errorf("deleting a missing key: %v; want no error", err)
					}
				})
			}
		})
	}
}

func TestMissingKeys(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind.name+" store reports a missing key as ErrNotFound with the key in the message", func(t *testing.T) {
			s := kind.open(t)
			ctx := context.Background()
			mustPut(t, s, "files/a.pdf", pdfLike(100), "application/pdf")
			for _, key := range []string{"files/missing.pdf", "cache/missing", "files/a.pdf/below-a-file", "files"} {
				_, err := s.Stat(ctx, key)
				if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), key) {
					t.Errorf("Stat(%q) = %v; want ErrNotFound naming the key", key, err)
				}
				if _, _, err := s.Get(ctx, key); !errors.Is(err, ErrNotFound) {
					t.Errorf("Get(%q) = %v; want ErrNotFound", key, err)
				}
				if err := s.Delete(ctx, key); err != nil {
					t.Errorf("Delete(%q) = %v; want nil", key, err)
				}
			}
			if b := mustRead(t, s, "files/a.pdf"); len(b) != 100 {
				t.Errorf("deleting missing keys disturbed a stored one")
			}
		})
	}
}

func TestPublicURL(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind.name+" store serves a public PDF to a plain HTTP client and never a cache entry", func(t *testing.T) {
			s := kind.open(t)
			doc := pdfLike(100 << 10)
			mustPut(t, s, "files/x/doc.pdf", doc, "application/pdf")
			mustPut(t, s, "cache/x/entry", []byte(`{"secret":true}`), "application/json")

			url := s.URL("files/x/doc.pdf")
			if url == "" {
				t.Fatal(`URL("files/x/doc.pdf") is empty`)
			}
			resp, body := fetch(t, url, nil)
			if resp.StatusCode != http.StatusOK || !bytes.Equal(body, doc) {
				t.Fatalf("GET %s = %d with %d bytes; want 200 with the %d stored", url, resp.StatusCode, len(body), len(doc))
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/pdf" {
				t.Errorf("Content-Type = %q; want application/pdf", ct)
			}
			if cc := resp.Header.Get("Cache-Control"); cc != publicCacheControl {
				t.Errorf("Cache-Control = %q; want %q", cc, publicCacheControl)
			}

			if u := s.URL("cache/x/entry"); u != "" {
				t.Errorf(`URL("cache/x/entry") = %q; a cache entry must have no public address`, u)
			}
			// Guess the address a cache entry would have if it were public.
			guess := strings.Replace(url, "files/x/doc.pdf", "cache/x/entry", 1)
			if _, ok := s.(*Local); ok {
				guess = strings.Replace(url, "x/doc.pdf", "../cache/x/entry", 1)
			}
			want := http.StatusForbidden
			if _, ok := s.(*Local); ok {
				want = http.StatusNotFound
			}
			resp, body = fetch(t, guess, nil)
			if resp.StatusCode != want || bytes.Contains(body, []byte("secret")) {
				t.Errorf("GET %s = %d %q; want %d without the entry", guess, resp.StatusCode, body, want)
			}
		})
	}

	t.Run("an anonymous client cannot list the bucket", func(t *testing.T) {
		srv := sharedMinio(t)
		s := newS3Store(t, srv)
		mustPut(t, s, "files/a.pdf", pdfLike(10), "application/pdf")
		resp, body := fetch(t, srv.URL()+"/"+s.Bucket()+"/", nil)
		if resp.StatusCode != http.StatusForbidden || bytes.Contains(body, []byte("a.pdf")) {
			t.Errorf("anonymous listing = %d %q; want 403 without keys", resp.StatusCode, body)
		}
	})
}

func TestFailedPutLeavesNothing(t *testing.T) {
	errRender := errors.New("the render crashed")
	tests := []struct {
		name    string
		reader  func(cancel context.CancelFunc) io.Reader
		size    int64
		wantErr error  // errors.Is target, if any
		wantMsg string // substring, if any
	}{
		{
			name:    "a reader that fails after 1 KB",
			reader:  func(context.CancelFunc) io.Reader { return failAfter(1<<10, errRender) },
			size:    -1,
			wantErr: errRender,
		},
		{
			name:    "a reader that fails after 1 KB of 4 KB announced",
			reader:  func(context.CancelFunc) io.Reader { return failAfter(1<<10, errRender) },
			size:    4 << 10,
			wantErr: errRender,
		},
		{
			name:    "a reader that fails after the first part was sent",
			reader:  func(context.CancelFunc) io.Reader { return failAfter(partSize+(2<<20), errRender) },
			size:    -1,
			wantErr: errRender,
		},
		{
			name:    "a truncated stream that reports io.ErrUnexpectedEOF",
			reader:  func(context.CancelFunc) io.Reader { return failAfter(2<<20, io.ErrUnexpectedEOF) },
			size:    -1,
			wantErr: io.ErrUnexpectedEOF,
		},
		{
			name:    "a reader shorter than the size announced",
			reader:  func(context.CancelFunc) io.Reader { return newPattern(1000) },
			size:    2000,
			wantMsg: "ended after 1000 of the 2000 bytes",
		},
		{
			name:    "a reader longer than the size announced",
			reader:  func(context.CancelFunc) io.Reader { return newPattern(3000) },
			size:    2000,
			wantMsg: "longer than the 2000 bytes",
		},
		{
			name:    "a reader shorter than the size announced, past the first part",
			reader:  func(context.CancelFunc) io.Reader { return newPattern(partSize + 10) },
			size:    partSize + 20,
			wantMsg: "bytes announced",
		},
		{
			name:    "a reader longer than the size announced, past the first part",
			reader:  func(context.CancelFunc) io.Reader { return newPattern(2*partSize + 10) },
			size:    partSize + 20,
			wantMsg: "longer than",
		},
		{
			name: "a caller that gives up after the first part was sent",
			reader: func(cancel context.CancelFunc) io.Reader {
				p := newPattern(3 * partSize)
				p.step, p.every = partSize+(1<<20), cancel
				return p
			},
			size:    -1,
			wantErr: context.Canceled,
		},
	}
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			s := kind.open(t)
			for i, tt := range tests {
				t.Run(tt.name+" leaves no object and no temporary data", func(t *testing.T) {
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					key := "files/failed/" + string(rune('a'+i)) + ".pdf"
					_, err := s.Put(ctx, key, tt.reader(cancel), tt.size, "application/pdf")
					if err == nil {
						t.Fatal("Put succeeded; want an error")
					}
					if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
						t.Errorf("Put error = %v; want it to wrap %v", err, tt.wantErr)
					}
					if tt.wantMsg != "" && !strings.Contains(err.Error(), tt.wantMsg) {
						t.Errorf("Put error = %q; want it to say %q", err, tt.wantMsg)
					}
					if errors.Is(err, ErrUnavailable) {
						t.Errorf("Put error = %v; a failing reader must not be reported as storage being unreachable", err)
					}
					assertNothingLeft(t, s, key)
				})
			}

			t.Run("a failed overwrite keeps the previous object", func(t *testing.T) {
				old := pdfLike(4000)
				mustPut(t, s, "files/kept.pdf", old, "application/pdf")
				if _, err := s.Put(context.Background(), "files/kept.pdf", failAfter(partSize+100, errRender), -1, "application/pdf"); !errors.Is(err, errRender) {
					t.Fatalf("Put error = %v; want %v", err, errRender)
				}
				if b := mustRead(t, s, "files/kept.pdf"); !bytes.Equal(b, old) {
					t.Errorf("after a failed overwrite, Get returned %d bytes other than the previous %d", len(b), len(old))
				}
			})
		})
	}
}

func TestPutStreamsWithoutHoldingTheObject(t *testing.T) {
	const size = 50 << 20
	const limit = 20 << 20
	for _, kind := range storeKinds {
		t.Run(kind.name+" store takes 50 MB of unknown size with far less heap", func(t *testing.T) {
			s := kind.open(t)
			// Warm up the client, pools and connections, so that what is
			// measured is the stream alone.
			mustPut(t, s, "files/warm.pdf", pdfLike(partSize+1), "application/pdf")

			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			base, peak := ms.HeapAlloc, ms.HeapAlloc
			src := newPattern(size)
			// Collect first, so that the sample is what is held, not garbage
			// a later cycle would free.
			src.step, src.every = 4<<20, func() {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
			obj, err := s.Put(context.Background(), "files/fifty.pdf", src, -1, "application/pdf")
			if err != nil {
				t.Fatalf("Put: %v", err)
			}
			if obj.Size != size {
				t.Errorf("Put stored %d bytes; want %d", obj.Size, size)
			}
			if growth := int64(peak) - int64(base); growth > limit {
				t.Errorf("the heap grew by %d MiB during the Put; want under %d MiB", growth>>20, limit>>20)
			} else {
				t.Logf("the heap grew by at most %.1f MiB", float64(growth)/(1<<20))
			}

			rc, _, err := s.Get(context.Background(), "files/fifty.pdf")
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			defer rc.Close()
			h := sha256.New()
			if _, err := io.Copy(h, rc); err != nil {
				t.Fatalf("reading back: %v", err)
			}
			if !bytes.Equal(h.Sum(nil), src.sum.Sum(nil)) {
				t.Error("the 50 MB read back differ from what was written")
			}
		})
	}
}

func TestInvalidKeysAreRejectedEverywhere(t *testing.T) {
	keys := []string{"", "../etc/passwd", "/files/a.pdf", "files/../cache/x", "files/a b.pdf", "files/a.pdf~meta", "files//a.pdf", "files/./a.pdf", "files/", strings.Repeat("a", MaxKeyLength+1)}
	for _, kind := range storeKinds {
		t.Run(kind.name+" store refuses traversal and odd keys in every method", func(t *testing.T) {
			s := kind.open(t)
			ctx := context.Background()
			for _, key := range keys {
				if _, err := s.Put(ctx, key, strings.NewReader("x"), 1, ""); !errors.Is(err, ErrInvalidKey) {
					t.Errorf("Put(%q) = %v; want ErrInvalidKey", key, err)
				}
				if _, _, err := s.Get(ctx, key); !errors.Is(err, ErrInvalidKey) {
					t.Errorf("Get(%q) = %v; want ErrInvalidKey", key, err)
				}
				if _, err := s.Stat(ctx, key); !errors.Is(err, ErrInvalidKey) {
					t.Errorf("Stat(%q) = %v; want ErrInvalidKey", key, err)
				}
				if err := s.Delete(ctx, key); !errors.Is(err, ErrInvalidKey) {
					t.Errorf("Delete(%q) = %v; want ErrInvalidKey", key, err)
				}
				if u := s.URL(key); u != "" {
					t.Errorf("URL(%q) = %q; want empty", key, u)
				}
			}
		})
	}
}

func TestPingAndKind(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind.name+" store answers Ping and names its kind", func(t *testing.T) {
			s := kind.open(t)
			if err := s.Ping(context.Background()); err != nil {
				t.Errorf("Ping: %v", err)
			}
			if s.Kind() != kind.name {
				t.Errorf("Kind() = %q; want %q", s.Kind(), kind.name)
			}
		})
	}
}
