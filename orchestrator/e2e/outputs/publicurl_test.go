package outputs_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// testPDFPublicBase renders a PDF under each kind of GLIMPSE_PUBLIC_BASE_URL
// an operator sets and fetches data.pdf.url with a client that knows
// nothing of glimpse: the file must be there whatever the base names.
func testPDFPublicBase(t *testing.T, env *pdfEnv) {
	withStorage := func(c *orchestrator.Config) {
		if env.minio != nil {
			c.S3Endpoint, c.S3AccessKey, c.S3SecretKey, c.S3Bucket = env.minio.Endpoint, env.minio.AccessKey, env.minio.SecretKey, pdfBucket
		}
	}
	type setup struct {
		name string
		// start returns the app and the base its file URLs must start with.
		start func(t *testing.T) (*e2e.App, string)
	}
	setups := []setup{
		{"glimpse's own address, without /files/", func(t *testing.T) (*e2e.App, string) {
			addr := freeLoopbackAddr(t)
			app := e2e.StartApp(t, func(c *orchestrator.Config) {
				withStorage(c)
				c.Addr, c.PublicBaseURL = addr, "http://"+addr
			})
			return app, "http://" + addr + "/files/"
		}},
		{"glimpse's own /files/ folder", func(t *testing.T) (*e2e.App, string) {
			addr := freeLoopbackAddr(t)
			app := e2e.StartApp(t, func(c *orchestrator.Config) {
				withStorage(c)
				c.Addr, c.PublicBaseURL = addr, "http://"+addr+"/files"
			})
			return app, "http://" + addr + "/files/"
		}},
		{"a CDN in front of glimpse, under a path of its own", func(t *testing.T) (*e2e.App, string) {
			// The CDN serves /assets/... from glimpse's /... and is set up
			// before glimpse's address is known.
			var origin atomic.Pointer[url.URL]
			cdn := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
				r.SetURL(origin.Load())
				r.Out.URL.Path = strings.TrimPrefix(r.In.URL.Path, "/assets")
				r.Out.URL.RawPath = ""
			}})
			t.Cleanup(cdn.Close)
			app := e2e.StartApp(t, func(c *orchestrator.Config) {
				withStorage(c)
				c.PublicBaseURL = cdn.URL + "/assets/"
			})
			u, _ := url.Parse(app.URL())
			origin.Store(u)
			return app, cdn.URL + "/assets/files/"
		}},
	}
	if env.minio != nil {
		setups = append(setups, setup{"the bucket, by default", func(t *testing.T) (*e2e.App, string) {
			return e2e.StartApp(t, withStorage), "http://" + env.minio.Endpoint + "/" + pdfBucket + "/files/"
		}})
	}
	for _, s := range setups {
		t.Run(s.name, func(t *testing.T) {
			app, want := s.start(t)
			a := app.Get(env.ps.URL+"/probe?base="+url.QueryEscape(s.name), "pdf=true&meta=false&force=true")
			if a.HTTP != http.StatusOK {
				t.Fatalf("the PDF request answered %d: %.300s", a.HTTP, a.Raw)
			}
			var data struct {
				PDF pdfObject `json:"pdf"`
			}
			if err := json.Unmarshal(a.Data, &data); err != nil {
				t.Fatalf("data is not an object: %v: %.300s", err, a.Raw)
			}
			if !strings.HasPrefix(data.PDF.URL, want) || strings.Contains(strings.TrimPrefix(data.PDF.URL, want), "files/") {
				t.Fatalf("data.pdf.url is %s; want it below %s", data.PDF.URL, want)
			}
			client := &http.Client{Timeout: 30 * time.Second}
			defer client.CloseIdleConnections()
			resp, err := client.Get(data.PDF.URL)
			if err != nil {
				t.Fatalf("fetching data.pdf.url: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Header.Get("content-type") != "application/pdf" || !bytes.HasPrefix(body, []byte("%PDF-")) {
				t.Errorf("data.pdf.url %s answered %d %s with %.20q; want 200 with the PDF", data.PDF.URL, resp.StatusCode, resp.Header.Get("content-type"), body)
			}
		})
	}
}

// freeLoopbackAddr is a loopback address with a port nobody listens on
// now, for an app whose public address must be known before it starts.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
