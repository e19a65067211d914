package api

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/sidecar/guard"
)

// newTestServer is the HTTP API without a browser behind a real HTTP
// server with the limits the service sets: it answers what needs no page.
func newTestServer(t *testing.T) *httptest.Server {
	t.Helper()
	s := NewServer(Config{Region: "test"}, Deps{
		Policy: guard.NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}),
		Logger: slog.New(slog.DiscardHandler),
	})
	hs := httptest.NewUnstartedServer(s.Handler())
	hs.Config.MaxHeaderBytes = 2 * MaxRequestBytes
	hs.Start()
	t.Cleanup(hs.Close)
	return hs
}

type envelope struct {
	Status  string `json:"status"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func call(t *testing.T, hs *httptest.Server, method, rawQuery string) (int, envelope) {
	t.Helper()
	req, err := http.NewRequest(method, hs.URL+"/?"+rawQuery, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var env envelope
	if method != http.MethodHead && resp.StatusCode != http.StatusOK {
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatalf("%s answered %d with a body that is not the JSON envelope: %q", method, resp.StatusCode, b)
		}
	}
	return resp.StatusCode, env
}

func TestSmallWrongAnswersAreTheDocumentedOnes(t *testing.T) {
	hs := newTestServer(t)
	target := "url=" + url.QueryEscape("http://127.0.0.1:1/")
	// 60 KiB of script, every byte percent-encoded: 180 KiB on the wire,
	// within the documented 64 KiB of `scripts`.
	bigScript := "scripts=" + strings.Repeat("%3B", 60<<10)
	cases := []struct {
		name, method, query string
		status              int
		code                string
	}{
		{"a request larger than glimpse reads is a JSON 431", "GET", target + "&scripts=" + strings.Repeat("x", 300<<10), 431, "ETOOLARGE"},
		{"scripts up to the documented 64 KiB get through, percent-encoded", "GET", target + "&meta=false&" + bigScript, 200, ""},
		{"PROPFIND is a method the API does not answer", "PROPFIND", target, 405, "EMETHOD"},
		{"a made-up method too", "BREW", target, 405, "EMETHOD"},
		{"a parameter name that is not UTF-8 is refused", "GET", target + "&da%FFta=1", 400, "EINVALQUERY"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, env := call(t, hs, tc.method, tc.query)
			if status != tc.status || env.Code != tc.code {
				t.Fatalf("got %d %s (%s), want %d %s", status, env.Code, env.Message, tc.status, tc.code)
			}
		})
	}
}
