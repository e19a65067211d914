package api

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/orchestrator/cache"
	"github.com/glimpse/glimpse/orchestrator/query"
)

func TestOutputIsTheMostExpensiveThingARequestAsksFor(t *testing.T) {
	cases := []struct {
		name, query, want string
	}{
		{"a plain request asks for metadata", "url=https://example.com/", metrics.OutputMetadata},
		{"a PDF outweighs metadata", "url=https://example.com/&pdf", metrics.OutputPDF},
		{"a PDF option turns the PDF on", "url=https://example.com/&pdf.scale=1", metrics.OutputPDF},
		{"a PDF outweighs a screenshot", "url=https://example.com/&pdf&screenshot", metrics.OutputPDF},
		{"a screenshot outweighs data rules", "url=https://example.com/&screenshot&data.h.selector=h1", metrics.OutputScreenshot},
		{"a rule read as Markdown is markdown", "url=https://example.com/&data.content.attr=markdown&meta=false&embed=content", metrics.OutputMarkdown},
		{"Markdown in a fallback counts", "url=https://example.com/&data.c.0.selector=main&data.c.0.attr=text&data.c.1.attr=markdown", metrics.OutputMarkdown},
		{"Markdown outweighs other rules", "url=https://example.com/&data.h.selector=h1&data.content.attr=markdown", metrics.OutputMarkdown},
		{"other data rules are data", "url=https://example.com/&data.h.selector=h1&data.h.attr=text", metrics.OutputData},
		{"meta=false alone asks for nothing", "url=https://example.com/&meta=false", metrics.OutputNone},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := query.Parse(tc.query, query.DefaultLimits())
			if err != nil {
				t.Fatalf("query %q does not parse: %v", tc.query, err)
			}
			if got := outputOf(req); got != tc.want {
				t.Errorf("outputOf(%q) = %q, want %q", tc.query, got, tc.want)
			}
		})
	}
}

// TestPDFAndMetadataRequestsLandInDifferentSeries answers from the cache,
// so no browser is needed: the output label comes from the query, not from
// how the answer was made.
func TestPDFAndMetadataRequestsLandInDifferentSeries(t *testing.T) {
	reg := metrics.NewRegistry()
	s := NewServer(Config{Region: "test"}, Deps{
		Registry: reg,
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	const (
		metadataQuery = "url=https://example.com/article"
		pdfQuery      = "url=https://example.com/article&pdf"
	)
	now := time.Now()
	for _, raw := range []string{metadataQuery, pdfQuery} {
		req, err := query.Parse(raw, query.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		key := query.Key(req)
		s.Cache().Put(&cache.Entry{Key: key, Body: []byte(`{"status":"success","data":{}}`), ETag: `"e"`,
			Created: now, Expires: now.Add(time.Hour), TTL: time.Hour, FetchMode: "prerender"})
	}

	get := func(raw string) *httptest.ResponseRecorder {
		t.Helper()
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/?"+raw, nil))
		return rec
	}
	for _, raw := range []string{metadataQuery, pdfQuery, pdfQuery} {
		if rec := get(raw); rec.Code != http.StatusOK || rec.Header().Get("x-cache-status") != "HIT" {
			t.Fatalf("GET /?%s answered %d with x-cache-status %q, want a 200 from the cache: %s",
				raw, rec.Code, rec.Header().Get("x-cache-status"), rec.Body)
		}
	}
	// Answered before any work: the address rule refuses it after the query
	// parsed, and a query that does not parse has no output.
	if rec := get("url=http://127.0.0.1/&screenshot"); rec.Code != http.StatusBadRequest {
		t.Fatalf("a screenshot of a loopback address answered %d, want 400: %s", rec.Code, rec.Body)
	}
	if rec := get("url=ftp://example.com/&pdf"); rec.Code != http.StatusBadRequest {
		t.Fatalf("an ftp URL answered %d, want 400: %s", rec.Code, rec.Body)
	}

	m := s.Metrics()
	counters := []struct {
		name                 string
		code, status, output string
		want                 float64
	}{
		{"the metadata request is counted under output=metadata", "OK", "2xx", metrics.OutputMetadata, 1},
		{"the PDF requests are counted under output=pdf", "OK", "2xx", metrics.OutputPDF, 2},
		{"a refused screenshot is counted under output=screenshot", "EFORBIDDENURL", "4xx", metrics.OutputScreenshot, 1},
		{"a query that did not parse is counted under output=none", "EINVALURL", "4xx", metrics.OutputNone, 1},
		{"a query that did not parse is not counted as a PDF", "EINVALURL", "4xx", metrics.OutputPDF, 0},
		{"no request was counted as markdown", "OK", "2xx", metrics.OutputMarkdown, 0},
	}
	for _, tc := range counters {
		t.Run(tc.name, func(t *testing.T) {
			if got := testutil.ToFloat64(m.Requests.WithLabelValues(tc.code, tc.status, tc.output)); got != tc.want {
				t.Errorf("glimpse_http_requests_total{code=%q,status=%q,output=%q} = %v, want %v", tc.code, tc.status, tc.output, got, tc.want)
			}
		})
	}

	durations := []struct {
		name          string
		cache, output string
		want          uint64
	}{
		{"the metadata answer's duration is under output=metadata", "HIT", metrics.OutputMetadata, 1},
		{"the PDF answers' durations are under output=pdf", "HIT", metrics.OutputPDF, 2},
		{"the refused screenshot's duration is under output=screenshot", "NONE", metrics.OutputScreenshot, 1},
		{"the unparsed query's duration is under output=none", "NONE", metrics.OutputNone, 1},
	}
	for _, tc := range durations {
		t.Run(tc.name, func(t *testing.T) {
			if got := histogramCount(t, m.RequestDuration.WithLabelValues(tc.cache, tc.output)); got != tc.want {
				t.Errorf("glimpse_http_request_duration_seconds_count{cache=%q,output=%q} = %d, want %d", tc.cache, tc.output, got, tc.want)
			}
		})
	}
}

func histogramCount(t *testing.T, o prometheus.Observer) uint64 {
	t.Helper()
	var out dto.Metric
	if err := o.(prometheus.Metric).Write(&out); err != nil {
		t.Fatal(err)
	}
	return out.GetHistogram().GetSampleCount()
}
