package api

import (
	"errors"
	"slices"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/render"
)

// TestRenderFailuresAnswerAStatusByWhetherARetryHelps maps each kind of
// render failure to the answer a client sees, and whether got (under
// @microlink/mql) would send the request again by itself.
func TestRenderFailuresAnswerAStatusByWhetherARetryHelps(t *testing.T) {
	cases := []struct {
		kind    render.Kind
		code    string
		status  int
		retried bool
	}{
		{render.Unreadable, apierr.CodeFetch, 424, false},
		{render.TooManyRedirects, apierr.CodeMaxRedirects, 400, false},
		{render.Forbidden, apierr.CodeForbiddenURL, 400, false},
		{render.Unresolvable, apierr.CodeInvalidURL, 400, false},
		{render.BadInput, apierr.CodeInvalidQuery, 400, false},
		{render.BadPageRange, apierr.CodePageRange, 400, false},
		{render.TimedOut, apierr.CodeTimeout, 504, true},
		{render.Busy, apierr.CodeBusy, 503, true},
		{render.BrowserLost, apierr.CodeFatal, 500, true},
	}
	s := &Server{}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			e := s.asError(&render.Error{Kind: c.kind, Message: "Something happened.", URL: "https://example.com/"})
			if e.Code != c.code || e.Status() != c.status {
				t.Fatalf("kind %v answered %s %d; want %s %d", c.kind, e.Code, e.Status(), c.code, c.status)
			}
			if got := slices.Contains(apierr.ClientRetried, e.Status()); got != c.retried {
				t.Errorf("kind %v answers %d, which clients retry: %t; want %t", c.kind, e.Status(), got, c.retried)
			}
			if want := map[bool]string{true: "error", false: "fail"}[e.Status() >= 500]; e.Envelope("r", "").Status != want {
				t.Errorf("kind %v has envelope status %q; want %q", c.kind, e.Envelope("r", "").Status, want)
			}
		})
	}
	if e := s.asError(errors.New("the browser could not reach the network through its egress proxy")); e.Code != apierr.CodeFatal {
		t.Errorf("a failure of glimpse's own egress answered %s; want EFATAL, a failure on the service's side", e.Code)
	}
}
