package render

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/query"
)

func TestCapturesOfAPageReadWithoutABrowserAreTheServicesFault(t *testing.T) {
	p := &Page{FetchMode: "fetch"}
	_, err := p.Screenshot(t.Context(), &query.ScreenshotOptions{Type: "png"})
	var re *Error
	if err == nil || errors.As(err, &re) {
		t.Errorf("a screenshot of a plain fetch gave %v; want an unexpected error, never one that blames the page or the caller", err)
	}
	_, err = p.PrintPDF(t.Context(), &query.PDFOptions{})
	if err == nil || errors.As(err, &re) {
		t.Errorf("a PDF of a plain fetch gave %v; want an unexpected error", err)
	}
}

func TestAFailedTunnelIsTriedWithoutTheListOnlyWhenTheListApplied(t *testing.T) {
	onlyAds := func(host string) bool {
		return host == "ads.example.test" || strings.HasSuffix(host, ".ads.example.test")
	}
	cases := []struct {
		name       string
		unfiltered bool
		listed     func(string) bool
		finalURL   string
		errorText  string
		want       bool
	}{
		{"a refused tunnel through the list may be the list", false, nil, "https://example.test/", "net::ERR_TUNNEL_CONNECTION_FAILED", true},
		{"a refused tunnel without the list is not the list", true, nil, "https://example.test/", "net::ERR_TUNNEL_CONNECTION_FAILED", false},
		{"another failure is never the list", false, nil, "https://example.test/", "net::ERR_CONNECTION_REFUSED", false},
		{"a refused tunnel to a listed host is the list", false, onlyAds, "https://www.ads.example.test/landing", "net::ERR_TUNNEL_CONNECTION_FAILED", true},
		{"a refused tunnel to a host the list does not name is the host's own failure", false, onlyAds, "https://example.test/", "net::ERR_TUNNEL_CONNECTION_FAILED", false},
		{"a redirect into a listed host is judged by where it led", false, onlyAds, "https://ads.example.test/", "net::ERR_TUNNEL_CONNECTION_FAILED", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := &navigation{r: &Renderer{listed: tc.listed}, unfiltered: tc.unfiltered, finalURL: tc.finalURL}
			if got := n.listedDocument(t.Context(), tc.errorText); got != tc.want {
				t.Errorf("listedDocument = %t, want %t", got, tc.want)
			}
		})
	}
}

func TestBrowserErrorsSayWhatHappened(t *testing.T) {
	expired, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	<-expired.Done()
	var re *Error
	if err := browserError(expired, "reading the page", errors.New("boom")); !errors.As(err, &re) || re.Kind != TimedOut {
		t.Errorf("a step cut off by the deadline gave %v; want TimedOut", err)
	}
	if err := browserError(context.Background(), "reading the page", errors.New("boom")); errors.As(err, &re) {
		t.Errorf("an unexplained failure gave %v; want an unexpected error", err)
	}
}
