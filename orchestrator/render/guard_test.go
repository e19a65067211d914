package render

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/glimpse/glimpse/sidecar/guard"
)

// testMarks are the marks of the tests' stand-ins for the egress guard.
var testMarks = guard.NewMarks("a sidecar token of the render tests")

// markAnswer sets the guard's word on w as the guard would for r: marked
// for the host r asks for and the nonce it carries.
func markAnswer(w http.ResponseWriter, r *http.Request, word string) {
	host := r.URL.Host
	if r.Method == http.MethodConnect || host == "" {
		host = r.Host
	}
	w.Header().Set(guard.Header, word)
	w.Header().Set(guard.MarkHeader, testMarks.Mark(word, host, r.Header.Get(guard.NonceHeader)))
}

func TestTheGuardsWordIsReadOnlyWhereTheGuardAnswersWithItsMark(t *testing.T) {
	marked := func(word, host, nonce string) map[string]string {
		return map[string]string{guard.Header: word, guard.MarkHeader: testMarks.Mark(word, host, nonce)}
	}
	cases := []struct {
		name, target, nonce string
		headers             map[string]string
		want                string
	}{
		{"a plain http answer marked for its host and request is the guard's", "http://example.com/p?q=1", "n1", marked("refused", "example.com", "n1"), "refused"},
		{"the browser's own request carries no nonce", "http://example.com:8080/", "", marked("timeout", "example.com", ""), "timeout"},
		{"the host is compared as the browser spells it", "http://EXAMPLE.com/", "", marked("blocked", "example.com:80", ""), "blocked"},
		{"an https answer came through a tunnel, from the target", "https://example.com/p", "", marked("refused", "example.com", ""), ""},
		{"a word without a mark is the target's", "http://example.com/", "", map[string]string{guard.Header: "refused"}, ""},
		{"a mark for another request does not hold", "http://example.com/", "n2", marked("refused", "example.com", "n1"), ""},
		{"a mark for another host does not hold", "http://example.com/", "", marked("refused", "other.example", ""), ""},
		{"a mark for another word does not hold", "http://example.com/", "", map[string]string{guard.Header: "blocked", guard.MarkHeader: testMarks.Mark("refused", "example.com", "")}, ""},
		{"a mark under another token does not hold", "http://example.com/", "", map[string]string{guard.Header: "refused", guard.MarkHeader: guard.NewMarks("another token").Mark("refused", "example.com", "")}, ""},
		{"no header is no word", "http://example.com/", "", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			get := func(k string) string { return tc.headers[k] }
			if got := guardWord(testMarks, tc.target, get, tc.nonce); got != tc.want {
				t.Errorf("guardWord = %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("without marks nothing is the guard's", func(t *testing.T) {
		m := marked("refused", "example.com", "")
		if got := guardWord(nil, "http://example.com/", func(k string) string { return m[k] }, ""); got != "" {
			t.Errorf("guardWord without marks = %q", got)
		}
	})
}

// A tunnel that failed in a render with the ad-block list is the list's
// doing only when the guard says, in a marked answer to the question, that
// its list names the host; the list glimpse was given decides only when
// the guard gives no such answer.
func TestTheGuardSaysWhetherAFailedTunnelsHostIsListed(t *testing.T) {
	asked := map[string]int{}
	var mu sync.Mutex
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(guard.AskHeader) != "listed" || r.Header.Get(guard.NonceHeader) == "" {
			t.Errorf("the guard was asked %q with nonce %q", r.Header.Get(guard.AskHeader), r.Header.Get(guard.NonceHeader))
		}
		mu.Lock()
		asked[r.URL.Hostname()]++
		mu.Unlock()
		switch r.URL.Hostname() {
		case "ads.example.test":
			markAnswer(w, r, "blocked")
			w.WriteHeader(http.StatusForbidden)
		case "liar.example.test":
			w.Header().Set(guard.Header, "blocked") // no mark: not the guard's
			w.WriteHeader(http.StatusForbidden)
		case "down.example.test":
			w.WriteHeader(http.StatusBadGateway)
		default:
			markAnswer(w, r, "unlisted")
		}
	}))
	defer proxy.Close()
	proxyURL, _ := url.Parse(proxy.URL)
	static := newStaticFetcher(func() (*url.URL, bool) { return proxyURL, true }, testMarks)
	ownCopy := func(host string) bool { return host == "own.example.test" || host == "down.example.test" }

	cases := []struct {
		name     string
		finalURL string
		want     bool
	}{
		{"a host the guard says is listed is the list's", "https://ads.example.test/landing", true},
		{"a host the guard says is unlisted failed for itself", "https://example.test/", false},
		{"the guard's answer outweighs glimpse's own copy of the list", "https://own.example.test/", false},
		{"an unmarked answer is no answer, and the copy decides", "https://liar.example.test/", false},
		{"a guard that gives no answer leaves it to the copy", "https://down.example.test/", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := &navigation{r: &Renderer{static: static, listed: ownCopy, log: slog.New(slog.DiscardHandler)}, finalURL: tc.finalURL}
			if got := n.listedDocument(t.Context(), "net::ERR_TUNNEL_CONNECTION_FAILED"); got != tc.want {
				t.Errorf("listedDocument = %t, want %t", got, tc.want)
			}
		})
	}
	t.Run("a render without the list asks nothing", func(t *testing.T) {
		before := len(asked)
		n := &navigation{r: &Renderer{static: static}, unfiltered: true, finalURL: "https://never.example.test/"}
		if n.listedDocument(t.Context(), "net::ERR_TUNNEL_CONNECTION_FAILED") || len(asked) != before {
			t.Error("a render without the list asked the guard, or was read as listed")
		}
	})
}
