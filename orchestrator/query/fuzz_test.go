package query

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/glimpse/glimpse/orchestrator/apierr"
	"golang.org/x/net/http/httpguts"
)

// FuzzParseRequest holds DESIGN invariant 5 for the query: whatever arrives,
// ParseRequest neither panics nor blames itself (no 5xx), its message is
// short readable text, and what it accepts is within every documented
// bound.
func FuzzParse(f *testing.F) {
	for _, tc := range requestCases {
		q := tc.query
		if !tc.raw {
			q = exampleTarget + "&" + q
		}
		f.Add(q)
	}
	for _, tc := range targetCases {
		if len(tc.in) < 1000 {
			f.Add("url=" + url.QueryEscape(tc.in) + "&pdf")
			f.Add("url=" + tc.in)
		}
	}
	f.Add("url=%ZZ%&pdf.margin=%&headers.%00=%0A&meta.%FF=1")
	f.Add("url=http://[::ffff:0x7f.1]/&embed=logo.url&meta.logo=false&meta.title=true")

	lim := DefaultLimits()
	f.Fuzz(func(t *testing.T, raw string) {
		req, err := Parse(raw, Limits{})
		if err != nil {
			checkFuzzedError(t, err, apierr.CodeInvalidURL, apierr.CodeInvalidQuery)
			return
		}
		checkAcceptedTarget(t, req.Target)
		if req.MetaOff != (req.Fields == nil) {
			t.Fatalf("MetaOff %v with fields %v", req.MetaOff, req.Fields)
		}
		i := 0
		for _, f := range req.Fields {
			for i < len(AllFields) && AllFields[i] != f {
				i++
			}
			if i == len(AllFields) {
				t.Fatalf("fields %v are not a subset of AllFields in order", req.Fields)
			}
		}
		if req.MediaType != "screen" && req.MediaType != "print" {
			t.Fatalf("media type %q", req.MediaType)
		}
		switch req.Embed {
		case "":
		case "pdf.url":
			if req.PDF == nil {
				t.Fatal("embed=pdf.url without a PDF")
			}
		case "image.url", "logo.url":
			if !isIn(req.Fields, strings.TrimSuffix(req.Embed, ".url")) {
				t.Fatalf("embed=%s without its field in %v", req.Embed, req.Fields)
			}
		case "screenshot.url":
			if req.Screenshot == nil {
				t.Fatal("embed=screenshot.url without a screenshot")
			}
		default:
			if !slices.ContainsFunc(req.Data, func(r DataRule) bool { return r.Name == req.Embed }) {
				t.Fatalf("embed %q names neither an asset nor a data rule", req.Embed)
			}
		}
		if req.Timeout < minTimeout || req.Timeout > lim.MaxTimeout {
			t.Fatalf("timeout %v", req.Timeout)
		}
		if req.TTL < minTTL || req.TTL > maxTTL {
			t.Fatalf("ttl %v", req.TTL)
		}
		if len(req.Headers) > maxHeaders {
			t.Fatalf("%d headers", len(req.Headers))
		}
		for name, values := range req.Headers {
			if len(values) != 1 || !httpguts.ValidHeaderFieldName(name) || !httpguts.ValidHeaderFieldValue(values[0]) ||
				hopByHop[strings.ToLower(name)] || strings.HasPrefix(strings.ToLower(name), "proxy-") {
				t.Fatalf("header %q: %q", name, values)
			}
		}
		if o := req.PDF; o != nil {
			if o.Scale < minPDFScale || o.Scale > maxPDFScale {
				t.Fatalf("scale %g", o.Scale)
			}
			if o.Width < minPaperInches || o.Width > maxPaperInches || o.Height < minPaperInches || o.Height > maxPaperInches {
				t.Fatalf("paper %gx%g", o.Width, o.Height)
			}
			m := o.Margin
			if m.Top < 0 || m.Right < 0 || m.Bottom < 0 || m.Left < 0 {
				t.Fatalf("negative margin %+v", m)
			}
			w, h := o.Width, o.Height
			if o.Landscape {
				w, h = h, w
			}
			if m.Left+m.Right >= w || m.Top+m.Bottom >= h {
				t.Fatalf("margins %+v leave no room on %gx%g", m, w, h)
			}
			if again, problem := normalisePageRanges(o.PageRanges); problem != "" || again != o.PageRanges {
				t.Fatalf("page ranges %q are not normalised (%q, %s)", o.PageRanges, again, problem)
			}
		}
	})
}

// FuzzParseTarget checks that a target either parses into a URL that parses
// again to itself, or is refused with EINVALURL, and never panics.
func FuzzParseTarget(f *testing.F) {
	for _, tc := range targetCases {
		f.Add(tc.in)
	}
	f.Add("http://[::ffff:1.2.3.4]:0080/%2e%2E/%zz?%#%")
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := ParseTarget(raw)
		if err != nil {
			checkFuzzedError(t, err, apierr.CodeInvalidURL)
			return
		}
		checkAcceptedTarget(t, u)
	})
}

func checkAcceptedTarget(t *testing.T, u *url.URL) {
	t.Helper()
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil || u.Opaque != "" {
		t.Fatalf("accepted an unusable target %#v", u)
	}
	again, err := ParseTarget(u.String())
	if err != nil {
		t.Fatalf("the normalised %q does not parse again: %v", u.String(), err)
	}
	if again.String() != u.String() {
		t.Fatalf("normalising %q twice gave %q", u.String(), again.String())
	}
}

func checkFuzzedError(t *testing.T, err error, codes ...string) {
	t.Helper()
	var e *apierr.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %T (%v), want *apierr.Error", err, err)
	}
	if e.Status() >= 500 || e.Status() < 400 {
		t.Fatalf("a caller's input gave status %d: %v", e.Status(), e)
	}
	if !isIn(codes, e.Code) {
		t.Fatalf("code %s, want one of %v", e.Code, codes)
	}
	if e.Message == "" || !utf8.ValidString(e.Message) || len(e.Message) > 1200 {
		t.Fatalf("message of %d bytes is empty, not UTF-8 or too long: %q", len(e.Message), e.Message)
	}
	for _, r := range e.Message {
		if r < 0x20 || r == 0x7f {
			t.Fatalf("message %q carries a control character", e.Message)
		}
	}
}
