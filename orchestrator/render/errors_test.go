package render

import (
	"errors"
	"strings"
	"testing"
)

// TestNavigationErrorsAreSortedByWhatARetryCanMend holds Chromium's net
// errors against the kind each becomes: the target's failures that a retry
// does not mend are Unreadable, time-outs and unresolvable hosts keep their
// own kinds, and failures of glimpse's own egress are not blamed on the
// target at all.
func TestNavigationErrorsAreSortedByWhatARetryCanMend(t *testing.T) {
	const service Kind = -1 // not a render error: the service's own failure
	cases := []struct {
		text string
		kind Kind
		says string // a word the message must hold, lower case
	}{
		{"net::ERR_CONNECTION_REFUSED", Unreadable, "refused"},
		{"net::ERR_CERT_AUTHORITY_INVALID", Unreadable, "certificate"},
		{"net::ERR_CERT_DATE_INVALID", Unreadable, "certificate"},
		{"net::ERR_CERT_COMMON_NAME_INVALID", Unreadable, "certificate"},
		{"net::ERR_SSL_PROTOCOL_ERROR", Unreadable, "tls"},
		{"net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH", Unreadable, "tls"},
		{"net::ERR_CONNECTION_CLOSED", Unreadable, "closed"},
		{"net::ERR_CONNECTION_RESET", Unreadable, "closed"},
		{"net::ERR_EMPTY_RESPONSE", Unreadable, "closed"},
		{"net::ERR_TUNNEL_CONNECTION_FAILED", Unreadable, "closed"},
		{"net::ERR_CONTENT_DECODING_FAILED", Unreadable, "compressed"},
		{"net::ERR_RESPONSE_HEADERS_TOO_BIG", Unreadable, "too large"},
		{"net::ERR_INVALID_HTTP_RESPONSE", Unreadable, "malformed"},
		{"net::ERR_INCOMPLETE_CHUNKED_ENCODING", Unreadable, "malformed"},
		{"net::ERR_ADDRESS_UNREACHABLE", Unreadable, "reached"},
		{"net::ERR_ABORTED", Unreadable, "not a page"},
		{"net::ERR_SOMETHING_NEW", Unreadable, "err_something_new"},
		{"net::ERR_TOO_MANY_REDIRECTS", TooManyRedirects, "redirected"},
		{"net::ERR_NAME_NOT_RESOLVED", Unresolvable, "resolve"},
		{"net::ERR_CONNECTION_TIMED_OUT", TimedOut, "time"},
		{"net::ERR_TIMED_OUT", TimedOut, "time"},
		{"net::ERR_PROXY_CONNECTION_FAILED", service, "egress"},
		{"net::ERR_NETWORK_CHANGED", service, "egress"},
		{"net::ERR_INTERNET_DISCONNECTED", service, "egress"},
	}
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			err := navigationError(c.text)
			var re *Error
			switch {
			case c.kind == service:
				if errors.As(err, &re) {
					t.Fatalf("%s gave a %v render error; want the service's own failure", c.text, re.Kind)
				}
			case !errors.As(err, &re):
				t.Fatalf("%s gave %v; want a render error of kind %v", c.text, err, c.kind)
			case re.Kind != c.kind:
				t.Fatalf("%s gave kind %v; want %v", c.text, re.Kind, c.kind)
			}
			if !strings.Contains(strings.ToLower(err.Error()), c.says) {
				t.Errorf("%s says %q; want it to mention %q", c.text, err.Error(), c.says)
			}
		})
	}
}

func TestFileTypesAreTheOnesABrowserDoesNotReadAsAPage(t *testing.T) {
	cases := map[string]bool{
		"application/pdf": true, "application/octet-stream": true, "application/zip": true,
		"image/png": true, "image/svg+xml": true, "video/mp4": true, "audio/mpeg": true, "font/woff2": true,
		"text/html": false, "application/xhtml+xml": false, "text/plain": false, "text/csv": false,
		"application/json": false, "application/ld+json": false, "application/xml": false,
		"application/rss+xml": false, "TEXT/HTML": false, "": false,
	}
	for mt, want := range cases {
		if got := isFileType(mt); got != want {
			t.Errorf("isFileType(%q) = %t, want %t", mt, got, want)
		}
	}
}

func TestFileOfReadsSizeOnlyWhenItIsTheFiles(t *testing.T) {
	cases := []struct {
		name    string
		headers map[string]string
		want    int64
	}{
		{"a plain length", map[string]string{"content-length": "1234"}, 1234},
		{"no length", map[string]string{}, -1},
		{"a compressed length is not the file's", map[string]string{"content-length": "99", "content-encoding": "gzip"}, -1},
		{"a bad length", map[string]string{"content-length": "lots"}, -1},
		{"a negative length", map[string]string{"content-length": "-5"}, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := fileOf("Application/PDF; name=x", func(k string) string { return c.headers[k] })
			if f.Size != c.want || f.MediaType != "application/pdf" {
				t.Errorf("fileOf gave size %d, type %q; want %d, application/pdf", f.Size, f.MediaType, c.want)
			}
		})
	}
}

func TestGuardAnswersAreSortedByWhoFailed(t *testing.T) {
	cases := []struct {
		guard string
		kind  Kind // 0: the service's own failure, not a render error
	}{
		{"refused", Forbidden},
		{"blocked", Forbidden},
		{"unresolvable", Unresolvable},
		{"unreachable", Unreadable},
		{"timeout", TimedOut},
		{"closing", 0},
		{"unsupported", 0},
	}
	for _, c := range cases {
		t.Run(c.guard, func(t *testing.T) {
			err := guardError("http://example.com/", c.guard)
			var re *Error
			isRender := errors.As(err, &re)
			switch {
			case c.kind == 0 && isRender:
				t.Errorf("the guard's %q gave a %v render error; want the service's own failure", c.guard, re.Kind)
			case c.kind != 0 && (!isRender || re.Kind != c.kind):
				t.Errorf("the guard's %q gave %v; want kind %v", c.guard, err, c.kind)
			}
		})
	}
}
