package render

import (
	"strings"
	"testing"
)

func TestResponseHeadersLeaveCredentialsOut(t *testing.T) {
	h := map[string]string{}
	for _, name := range []string{"Set-Cookie", "set-cookie2", "Authorization", "Proxy-Authenticate", "X-Auth-Token",
		"X-CSRF-Token", "X-Session-Id", "X-Api-Key", "x-amz-security-token", "X-Glimpse-Guard", "WWW-Authenticate"} {
		addHeader(h, name, "s3cr3t")
	}
	if len(h) != 0 {
		t.Errorf("credential-bearing headers were kept: %v", h)
	}
	addHeader(h, "Content-Type", "text/html")
	addHeader(h, "Vary", "Accept")
	addHeader(h, "vary", "Accept-Encoding")
	if h["content-type"] != "text/html" || h["vary"] != "Accept, Accept-Encoding" {
		t.Errorf("headers = %v", h)
	}
}

func TestResponseHeadersAreBounded(t *testing.T) {
	h := map[string]string{}
	for i := range 500 {
		addHeader(h, "x-h-"+strings.Repeat("a", i%7)+string(rune('a'+i%26))+strings.Repeat("b", i/26), "v")
	}
	if len(h) > maxResponseHeaders {
		t.Errorf("%d headers kept, want at most %d", len(h), maxResponseHeaders)
	}
	long := map[string]string{}
	addHeader(long, "x-long", strings.Repeat("é", maxResponseHeaderBytes))
	if v := long["x-long"]; len(v) > maxResponseHeaderBytes || !strings.HasPrefix(v, "é") {
		t.Errorf("a long header kept %d bytes", len(v))
	}
}
