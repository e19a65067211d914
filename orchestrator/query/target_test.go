package query

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/sidecar/guard"
)

// targetCase is one spelling of a target. want is the normalised URL when
// it is accepted; code and msg (a fragment of the message) when refused.
// requestCode, when set, is the outcome through ParseRequest instead, for
// inputs only the request limits refuse.
type targetCase struct {
	name, in, want string
	code, msg      string
	requestCode    string
}

var long10k = "https://example.com/" + strings.Repeat("a", 10000)

var targetCases = []targetCase{
	// Ordinary and sloppy spellings that browsers accept.
	{name: "a bare origin gets the root path", in: "https://example.com", want: "https://example.com/"},
	{name: "path, query and fragment are kept", in: "http://example.com/a/b?x=1&y=2#top", want: "http://example.com/a/b?x=1&y=2#top"},
	{name: "scheme and host are lower-cased but the path is not", in: "HTTPS://EXAMPLE.COM/Path", want: "https://example.com/Path"},
	{name: "surrounding spaces are dropped", in: "  https://example.com/  ", want: "https://example.com/"},
	{name: "a tab inside is removed", in: "https://exa\tmple.com/", want: "https://example.com/"},
	{name: "a newline inside is removed", in: "https://example.com\n/a", want: "https://example.com/a"},
	{name: "the default https port is dropped", in: "https://example.com:443/", want: "https://example.com/"},
	{name: "the default http port with leading zeros is dropped", in: "http://example.com:0080/", want: "http://example.com/"},
	{name: "another port is kept", in: "https://example.com:8443/x", want: "https://example.com:8443/x"},
	{name: "an empty port is dropped", in: "https://example.com:/", want: "https://example.com/"},
	{name: "a scheme without slashes still names a host", in: "https:example.com", want: "https://example.com/"},
	{name: "three slashes are read as two", in: "https:///example.com", want: "https://example.com/"},
	{name: "backslashes are slashes", in: `https:\\example.com\a\b`, want: "https://example.com/a/b"},
	{name: "dot segments are resolved", in: "https://example.com/a/./b/../c", want: "https://example.com/a/c"},
	{name: "encoded dot segments are resolved", in: "https://example.com/a/%2e%2E/b", want: "https://example.com/b"},
	{name: "a trailing double dot leaves a directory", in: "https://example.com/a/b/..", want: "https://example.com/a/"},
	{name: "an encoded slash stays encoded", in: "https://example.com/a%2Fb", want: "https://example.com/a%2Fb"},
	{name: "spaces in the path are encoded", in: "https://example.com/a b", want: "https://example.com/a%20b"},
	{name: "characters that cannot travel in a path are encoded", in: "https://example.com/a|c^{}", want: "https://example.com/a%7Cc%5E%7B%7D"},
	{name: "non-ASCII in the path is encoded as UTF-8", in: "https://example.com/ü", want: "https://example.com/%C3%BC"},
	{name: "a stray percent in the path is encoded", in: "https://example.com/100%", want: "https://example.com/100%25"},

	// The target's own query.
	{name: "the query keeps its escapes and plus signs", in: "https://example.com/?q=%2B1&r=a+b&s=%26", want: "https://example.com/?q=%2B1&r=a+b&s=%26"},
	{name: "spaces and quotes in the query are encoded", in: `https://example.com/?q=a b'"<>`, want: "https://example.com/?q=a%20b%27%22%3C%3E"},
	{name: "a stray percent in the query is kept", in: "https://example.com/?q=100%", want: "https://example.com/?q=100%"},
	{name: "an empty query is kept", in: "https://example.com/?", want: "https://example.com/?"},

	// Fragments.
	{name: "a fragment route is kept", in: "https://example.com/#/route?x=1", want: "https://example.com/#/route?x=1"},
	{name: "a fragment after the host gets the root path", in: "https://example.com#frag", want: "https://example.com/#frag"},
	{name: "spaces in the fragment are encoded", in: "https://example.com/#a b", want: "https://example.com/#a%20b"},

	// Internationalised names.
	{name: "an IDN becomes punycode", in: "https://bücher.example/", want: "https://xn--bcher-kva.example/"},
	{name: "upper-case IDN letters are mapped first", in: "https://ÉXAMPLE.com", want: "https://xn--xample-9ua.com/"},
	{name: "a Japanese name, path, query and fragment", in: "https://例え.テスト/パス?キー=値#ハッシュ",
		want: "https://xn--r8jz45g.xn--zckzah/%E3%83%91%E3%82%B9?%E3%82%AD%E3%83%BC=%E5%80%A4#%E3%83%8F%E3%83%83%E3%82%B7%E3%83%A5"},
	{name: "sharp s is kept, not turned into ss", in: "https://faß.de", want: "https://xn--fa-hia.de/"},
	{name: "full-width letters are mapped", in: "https://ｅｘａｍｐｌｅ.com", want: "https://example.com/"},
	{name: "an ideographic full stop separates labels", in: "https://example。com", want: "https://example.com/"},
	{name: "a soft hyphen is ignored", in: "https://\u00adexample.com", want: "https://example.com/"},
	{name: "a percent-encoded host is decoded", in: "https://%65xample.com/", want: "https://example.com/"},
	{name: "a trailing dot is kept", in: "https://example.com./", want: "https://example.com./"},
	{name: "an underscore is accepted", in: "https://my_host.example.com/", want: "https://my_host.example.com/"},
	{name: "double hyphens are accepted", in: "https://r3---sn-abc.googlevideo.com/", want: "https://r3---sn-abc.googlevideo.com/"},

	// Numeric IPv4 spellings, all written as dotted quads.
	{name: "a dotted quad stays", in: "http://93.184.215.14/", want: "http://93.184.215.14/"},
	{name: "a decimal number is an address", in: "http://2130706433/", want: "http://127.0.0.1/"},
	{name: "hex and short forms are an address", in: "http://0x7f.1/", want: "http://127.0.0.1/"},
	{name: "an octal number is an address", in: "http://017700000001/", want: "http://127.0.0.1/"},
	{name: "two parts are an address", in: "http://127.1/", want: "http://127.0.0.1/"},
	{name: "one hex number is an address", in: "http://0x7f000001/", want: "http://127.0.0.1/"},
	{name: "octal parts are an address", in: "http://0177.0.0.01/", want: "http://127.0.0.1/"},
	{name: "a trailing dot after an address is dropped", in: "http://127.0.0.1./", want: "http://127.0.0.1/"},
	{name: "full-width digits are an address", in: "http://１２７.０.０.１/", want: "http://127.0.0.1/"},
	{name: "percent-encoded digits are an address", in: "http://%31%32%37.0.0.1/", want: "http://127.0.0.1/"},
	{name: "a bare 0x is address zero", in: "http://0x/", want: "http://0.0.0.0/"},
	{name: "metadata address in hex", in: "http://0xA9FEA9FE/latest/meta-data/", want: "http://169.254.169.254/latest/meta-data/"},
	{name: "an address with a port", in: "http://8.8.8.8:8080/", want: "http://8.8.8.8:8080/"},

	// IPv6 spellings, all in the canonical compressed form.
	{name: "IPv6 loopback stays", in: "http://[::1]/", want: "http://[::1]/"},
	{name: "IPv6 written in full is compressed", in: "http://[0:0:0:0:0:0:0:1]/", want: "http://[::1]/"},
	{name: "IPv4-mapped dotted form is written in hex", in: "http://[::ffff:127.0.0.1]/", want: "http://[::ffff:7f00:1]/"},
	{name: "IPv4-mapped hex form stays", in: "http://[::ffff:7f00:1]/", want: "http://[::ffff:7f00:1]/"},
	{name: "NAT64 of the metadata address", in: "http://[64:ff9b::169.254.169.254]/", want: "http://[64:ff9b::a9fe:a9fe]/"},
	{name: "a public IPv6 address with a port", in: "http://[2606:4700:0:0:0:0:0:1111]:8080/", want: "http://[2606:4700::1111]:8080/"},
	{name: "the longest zero run is compressed", in: "http://[1:0:0:2:0:0:0:3]/", want: "http://[1:0:0:2::3]/"},
	{name: "the first of equal zero runs is compressed", in: "http://[1:0:0:2:0:0:3:4]/", want: "http://[1::2:0:0:3:4]/"},
	{name: "IPv6 hex is lower-cased", in: "http://[FE80::1]/", want: "http://[fe80::1]/"},
	{name: "the unspecified IPv6 address", in: "http://[::]/", want: "http://[::]/"},
	{name: "a backslash ends the host, so the at sign is in the path", in: `https://evil.com\@example.com`, want: "https://evil.com/@example.com"},
	{name: "a URL of 10,000 characters parses but is over the request limit", in: long10k, want: long10k, requestCode: apierr.CodeInvalidURL},

	// Refused: no protocol, wrong protocol.
	{name: "an empty string", in: "", code: apierr.CodeInvalidURL, msg: "needs a protocol (http or https) and a hostname"},
	{name: "a word", in: "no", code: apierr.CodeInvalidURL, msg: "The URL `no` is not valid: it needs a protocol (http or https) and a hostname."},
	{name: "a host without protocol", in: "example.com", code: apierr.CodeInvalidURL, msg: "needs a protocol"},
	{name: "a host and port without protocol", in: "example.com:8080/x", code: apierr.CodeInvalidURL, msg: "needs a protocol"},
	{name: "localhost with a port", in: "localhost:3000", code: apierr.CodeInvalidURL, msg: "needs a protocol"},
	{name: "a protocol-relative URL", in: "//example.com/", code: apierr.CodeInvalidURL, msg: "needs a protocol"},
	{name: "a file URL", in: "file:///etc/passwd", code: apierr.CodeInvalidURL, msg: "uses `file:`"},
	{name: "a chrome URL", in: "chrome://settings", code: apierr.CodeInvalidURL, msg: "uses `chrome:`"},
	{name: "a data URL", in: "data:text/html,<b>hi</b>", code: apierr.CodeInvalidURL, msg: "uses `data:`"},
	{name: "a javascript URL", in: "javascript:alert(1)", code: apierr.CodeInvalidURL, msg: "uses `javascript:`"},
	{name: "an ftp URL", in: "ftp://example.com/", code: apierr.CodeInvalidURL, msg: "uses `ftp:`"},
	{name: "about:blank", in: "about:blank", code: apierr.CodeInvalidURL, msg: "uses `about:`"},
	{name: "a blob URL", in: "blob:https://example.com/8c1d", code: apierr.CodeInvalidURL, msg: "uses `blob:`"},
	{name: "a WebSocket URL", in: "ws://example.com/", code: apierr.CodeInvalidURL, msg: "uses `ws:`"},
	{name: "a long unknown scheme is shown shortened", in: strings.Repeat("x", 5000) + "://example.com/", code: apierr.CodeInvalidURL, msg: "xxx…`"},
	{name: "a view-source URL", in: "view-source:https://example.com/", code: apierr.CodeInvalidURL, msg: "uses `view-source:`"},

	// Refused: no host, credentials, bad port.
	{name: "a protocol alone", in: "https://", code: apierr.CodeInvalidURL, msg: "needs a hostname after `https://`"},
	{name: "slashes alone", in: "https:///", code: apierr.CodeInvalidURL, msg: "needs a hostname"},
	{name: "a query without host", in: "https://?q=1", code: apierr.CodeInvalidURL, msg: "needs a hostname"},
	{name: "a port without host", in: "http://:80/", code: apierr.CodeInvalidURL, msg: "needs a hostname"},
	{name: "user and password", in: "https://user:pass@example.com/", code: apierr.CodeInvalidURL, msg: "`headers.authorization`"},
	{name: "a user alone", in: "https://user@example.com/", code: apierr.CodeInvalidURL, msg: "user information"},
	{name: "an empty user-info", in: "https://@example.com/", code: apierr.CodeInvalidURL, msg: "user information"},
	{name: "an encoded slash cannot hide user-info", in: "https://example.com%2F@evil.com/", code: apierr.CodeInvalidURL, msg: "user information"},
	{name: "a port above 65535", in: "https://example.com:99999/", code: apierr.CodeInvalidURL, msg: "from 1 to 65535"},
	{name: "port zero", in: "https://example.com:0/", code: apierr.CodeInvalidURL, msg: "from 1 to 65535"},
	{name: "a port with a letter", in: "https://example.com:8o/", code: apierr.CodeInvalidURL, msg: "port `8o`"},
	{name: "two ports", in: "https://example.com:80:90/", code: apierr.CodeInvalidURL, msg: "port `80:90`"},

	// Refused: hosts no browser or DNS accepts.
	{name: "a space in the host", in: "https://exa mple.com/", code: apierr.CodeInvalidURL, msg: "contains ` `"},
	{name: "an angle bracket in the host", in: "https://exa<mple.com/", code: apierr.CodeInvalidURL, msg: "contains `<`"},
	{name: "a broken escape in the host", in: "http://%zz.com/", code: apierr.CodeInvalidURL, msg: "contains `%`"},
	{name: "an empty label", in: "https://a..b.com/", code: apierr.CodeInvalidURL, msg: "empty label"},
	{name: "a leading dot", in: "https://.example.com/", code: apierr.CodeInvalidURL, msg: "empty label"},
	{name: "a dot alone", in: "https://./", code: apierr.CodeInvalidURL, msg: "has no name"},
	{name: "a label over 63 bytes", in: "https://" + strings.Repeat("a", 64) + ".com/", code: apierr.CodeInvalidURL, msg: "63 bytes"},
	{name: "a host of 10,000 characters", in: "https://" + strings.Repeat("a", 10000) + ".com/", code: apierr.CodeInvalidURL, msg: "253 bytes", requestCode: apierr.CodeInvalidURL},
	{name: "a name over 253 bytes", in: "https://" + strings.Repeat("a.", 130) + "com/", code: apierr.CodeInvalidURL, msg: "253 bytes"},
	{name: "invalid punycode", in: "https://xn--a.com/", code: apierr.CodeInvalidURL, msg: "not a valid domain name"},
	{name: "a label mixing directions", in: "https://a\u05d0b.com/", code: apierr.CodeInvalidURL, msg: "not a valid domain name"},
	{name: "a zero-width joiner, shown visibly", in: "https://a\u200db.com/", code: apierr.CodeInvalidURL, msg: `a\u200db.com`},
	{name: "five IPv4 parts", in: "http://1.2.3.4.5/", code: apierr.CodeInvalidURL, msg: "not an IPv4 address"},
	{name: "an IPv4 part over 255", in: "http://256.0.0.1/", code: apierr.CodeInvalidURL, msg: "not an IPv4 address"},
	{name: "a number over 32 bits", in: "http://4294967296/", code: apierr.CodeInvalidURL, msg: "not an IPv4 address"},
	{name: "a name ending in a number", in: "http://example.123/", code: apierr.CodeInvalidURL, msg: "ends in a number"},
	{name: "a name ending in hex", in: "http://a.0x/", code: apierr.CodeInvalidURL, msg: "ends in a number"},
	{name: "an IPv6 host without its bracket", in: "http://[::1/", code: apierr.CodeInvalidURL, msg: "no closing `]`"},
	{name: "an IPv6 host with a bad digit", in: "http://[::g]/", code: apierr.CodeInvalidURL, msg: "not an IPv6 address"},
	{name: "an IPv6 zone", in: "http://[fe80::1%25eth0]/", code: apierr.CodeInvalidURL, msg: "not an IPv6 address"},
	{name: "an IPv4 address in brackets", in: "http://[1.2.3.4]/", code: apierr.CodeInvalidURL, msg: "not an IPv6 address"},
	{name: "text after the brackets", in: "http://[::1]x/", code: apierr.CodeInvalidURL, msg: "only `:` and a port"},
	{name: "a NUL byte", in: "https://example.com/\x00", code: apierr.CodeInvalidURL, msg: "NUL"},
	{name: "bytes that are not UTF-8", in: "https://example.com/\xff", code: apierr.CodeInvalidURL, msg: "not UTF-8"},
	{name: "a host that decodes to bytes that are not UTF-8", in: "https://%ff.com/", code: apierr.CodeInvalidURL, msg: "not UTF-8"},
}

func TestParseTargetAcceptsWhatBrowsersAcceptAndRefusesTheRest(t *testing.T) {
	if len(targetCases) < 60 {
		t.Fatalf("the table has %d spellings; keep at least 60", len(targetCases))
	}
	for _, tc := range targetCases {
		t.Run(tc.name, func(t *testing.T) {
			u, err := ParseTarget(tc.in)
			checkTargetOutcome(t, tc.in, tc.want, tc.code, tc.msg, u, err)
			if tc.want == "" {
				return
			}
			// Normalising twice changes nothing: the cache key and the
			// address rule see one spelling.
			again, err := ParseTarget(u.String())
			if err != nil {
				t.Fatalf("the normalised %q does not parse again: %v", u.String(), err)
			}
			if again.String() != u.String() {
				t.Errorf("normalising twice gave %q, then %q", u.String(), again.String())
			}
		})
	}
}

func TestUserInfoIsMaskedInTheRefusal(t *testing.T) {
	cases := []struct{ name, in, shown, secret string }{
		{"a user and password", "https://ada:s3cr3t@example.com/a?b#c", "https://***@example.com/a?b#c", "s3cr3t"},
		{"a user alone", "http://ada-token@example.com/", "http://***@example.com/", "ada-token"},
		{"an at sign inside the password", "https://ada:p@ss@example.com/", "https://***@example.com/", "p@ss"},
		{"a scheme-like user", "http://http@example.com/", "http://***@example.com/", "http@"},
		{"backslashes and no slashes before the host", `https:\\ada:pw9@example.com`, `https:\\***@example.com`, "pw9"},
		{"surrounding spaces", "  https://ada:pw7@example.com/ ", "https://***@example.com/", "pw7"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTarget(tc.in)
			var e *apierr.Error
			if !errors.As(err, &e) || e.Code != apierr.CodeInvalidURL {
				t.Fatalf("%q gave %v, want EINVALURL", tc.in, err)
			}
			if strings.Contains(e.Message, tc.secret) || strings.Contains(fmt.Sprint(e.Data), tc.secret) {
				t.Errorf("the refusal repeats %q: %s %v", tc.secret, e.Message, e.Data)
			}
			if !strings.Contains(e.Message, "`"+tc.shown+"`") || e.Data["url"] != tc.shown {
				t.Errorf("the refusal shows %s %v, want the URL as %q", e.Message, e.Data, tc.shown)
			}
		})
	}
}

func TestParseRequestDecodesTheEncodedTargetExactlyOnce(t *testing.T) {
	for _, tc := range targetCases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := Parse("url="+url.QueryEscape(tc.in), Limits{})
			want, code := tc.want, tc.code
			if tc.requestCode != "" {
				want, code = "", tc.requestCode
			}
			if tc.in == "" {
				// An empty url is a missing url.
				checkTargetOutcome(t, tc.in, "", apierr.CodeInvalidURL, "`url` parameter is missing", nil, err)
				return
			}
			var u *url.URL
			if req != nil {
				u = req.Target
			}
			msg := tc.msg
			if tc.requestCode != "" {
				msg = ""
			}
			checkTargetOutcome(t, tc.in, want, code, msg, u, err)
		})
	}
}

func checkTargetOutcome(t *testing.T, in, want, code, msg string, u *url.URL, err error) {
	t.Helper()
	if want != "" {
		if err != nil {
			t.Fatalf("%q was refused: %v", in, err)
		}
		if got := u.String(); got != want {
			t.Fatalf("%q became %q, want %q", in, got, want)
		}
		if u.User != nil {
			t.Errorf("%q kept user-info", in)
		}
		return
	}
	if err == nil {
		t.Fatalf("%q was accepted as %q, want %s", in, u.String(), code)
	}
	var e *apierr.Error
	if !errors.As(err, &e) {
		t.Fatalf("%q gave %T (%v), want *apierr.Error", in, err, err)
	}
	if e.Code != code || e.Status() != 400 {
		t.Fatalf("%q gave %s/%d (%s), want %s/400", in, e.Code, e.Status(), e.Message, code)
	}
	if msg != "" && !strings.Contains(e.Message, msg) {
		t.Errorf("message %q does not contain %q", e.Message, msg)
	}
	if e.Param != "url" {
		t.Errorf("Param is %q, want url", e.Param)
	}
	if len(e.Message) > 600 {
		t.Errorf("message is %d bytes long; a caller's input must be shortened in it", len(e.Message))
	}
}

// testResolver answers from a table and records what it was asked, so the
// address rule is tested without real DNS.
type testResolver struct {
	answers map[string][]netip.Addr
	errs    map[string]error
	block   bool // wait for the context to end

	mu    sync.Mutex
	asked []string
}

func (r *testResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	r.asked = append(r.asked, host)
	r.mu.Unlock()
	if r.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if err, ok := r.errs[host]; ok {
		return nil, err
	}
	if a, ok := r.answers[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (r *testResolver) questions() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.asked...)
}

func mustAddrs(ss ...string) []netip.Addr {
	out := make([]netip.Addr, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParseAddr(s)
	}
	return out
}

func TestCheckTargetAppliesTheAddressRule(t *testing.T) {
	resolver := func() *testResolver {
		return &testResolver{
			answers: map[string][]netip.Addr{
				"example.test":          mustAddrs("93.184.215.14"),
				"v6.example.test":       mustAddrs("2606:4700::1111"),
				"loop.test":             mustAddrs("127.0.0.1"),
				"intranet.test":         mustAddrs("10.1.2.3"),
				"rebind.test":           mustAddrs("93.184.215.14", "192.168.1.1"),
				"metadata.test":         mustAddrs("169.254.169.254"),
				"mapped.test":           mustAddrs("::ffff:10.0.0.1"),
				"xn--bcher-kva.example": mustAddrs("93.184.215.15"),
			},
			errs: map[string]error{
				"slow.test": &net.DNSError{Err: "i/o timeout", Name: "slow.test", IsTimeout: true},
			},
		}
	}
	cases := []struct {
		name      string
		target    string
		allow     string
		code      string
		msg       string
		noLookup  bool
		hideInMsg string
	}{
		{name: "a public name is allowed", target: "https://example.test/"},
		{name: "a public IPv6 name is allowed", target: "https://v6.example.test/"},
		{name: "an IDN is looked up as punycode", target: "https://bücher.example/"},
		{name: "a public literal address is allowed without a lookup", target: "http://8.8.8.8/", noLookup: true},
		{name: "a public literal IPv6 address is allowed without a lookup", target: "http://[2606:4700::1111]/", noLookup: true},
		{name: "a name resolving to loopback is refused", target: "https://loop.test/", code: apierr.CodeForbiddenURL, msg: "loopback"},
		{name: "a name resolving to a private address is refused without naming the address", target: "https://intranet.test/",
			code: apierr.CodeForbiddenURL, msg: "non-public address", hideInMsg: "10.1.2.3"},
		{name: "one private address among public ones refuses the host", target: "https://rebind.test/", code: apierr.CodeForbiddenURL},
		{name: "a name resolving to the metadata address is refused", target: "https://metadata.test/", code: apierr.CodeForbiddenURL, msg: "link-local"},
		{name: "a name resolving to an IPv4-mapped private address is refused", target: "https://mapped.test/", code: apierr.CodeForbiddenURL},
		{name: "the metadata address is refused without a lookup", target: "http://169.254.169.254/", code: apierr.CodeForbiddenURL, noLookup: true},
		{name: "a decimal loopback spelling is refused", target: "http://2130706433/", code: apierr.CodeForbiddenURL, noLookup: true},
		{name: "a hex loopback spelling is refused", target: "http://0x7f.1/", code: apierr.CodeForbiddenURL, noLookup: true},
		{name: "address zero is refused", target: "http://0x/", code: apierr.CodeForbiddenURL, noLookup: true},
		{name: "IPv6 loopback is refused", target: "http://[::1]/", code: apierr.CodeForbiddenURL, noLookup: true},
		{name: "IPv4-mapped loopback is refused", target: "http://[::ffff:127.0.0.1]/", code: apierr.CodeForbiddenURL, noLookup: true},
		{name: "NAT64 of the metadata address is refused", target: "http://[64:ff9b::169.254.169.254]/", code: apierr.CodeForbiddenURL, noLookup: true},
		{name: "unique-local IPv6 is refused", target: "http://[fd00::1]/", code: apierr.CodeForbiddenURL, noLookup: true},
		{name: "localhost is refused without a lookup", target: "http://localhost:3000/", code: apierr.CodeForbiddenURL, noLookup: true},
		{name: "loopback inside the allow-list is allowed", target: "https://loop.test/", allow: "127.0.0.0/8"},
		{name: "a literal loopback inside the allow-list is allowed", target: "http://127.0.0.1:8080/", allow: "127.0.0.1", noLookup: true},
		{name: "the allow-list does not open other ranges", target: "https://intranet.test/", allow: "127.0.0.0/8", code: apierr.CodeForbiddenURL},
		{name: "a name that does not exist is an invalid URL", target: "https://nowhere.test/", code: apierr.CodeInvalidURL, msg: "does not resolve"},
		{name: "a lookup that times out says to try again", target: "https://slow.test/", code: apierr.CodeInvalidURL, msg: "timed out"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u, err := ParseTarget(tc.target)
			if err != nil {
				t.Fatalf("ParseTarget(%q): %v", tc.target, err)
			}
			var allow []netip.Prefix
			if tc.allow != "" {
				if allow, err = guard.ParsePrefixes(tc.allow); err != nil {
					t.Fatal(err)
				}
			}
			r := resolver()
			err = CheckTarget(context.Background(), guard.NewPolicy(allow), r, u)
			if tc.noLookup && len(r.questions()) > 0 {
				t.Errorf("the resolver was asked %v for a host that needs no lookup", r.questions())
			}
			if tc.code == "" {
				if err != nil {
					t.Fatalf("%s was refused: %v", tc.target, err)
				}
				return
			}
			e := apierr.From(err)
			if e == nil || e.Code != tc.code || e.Status() != 400 {
				t.Fatalf("%s gave %v, want %s", tc.target, err, tc.code)
			}
			if !strings.Contains(e.Message, tc.msg) {
				t.Errorf("message %q does not contain %q", e.Message, tc.msg)
			}
			if tc.hideInMsg != "" && strings.Contains(e.Message, tc.hideInMsg) {
				t.Errorf("message %q reveals the internal address %s", e.Message, tc.hideInMsg)
			}
			if e.Data["url"] != u.String() {
				t.Errorf("data.url is %v, want %q", e.Data["url"], u.String())
			}
			if e.Err == nil {
				t.Error("the internal cause was dropped")
			}
		})
	}
}

func TestCheckTargetGivesTimeoutWhenTheRequestBudgetEndsDuringTheLookup(t *testing.T) {
	u, err := ParseTarget("https://hanging.test/")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err = CheckTarget(ctx, guard.NewPolicy(nil), &testResolver{block: true}, u)
	e := apierr.From(err)
	if e == nil || e.Code != apierr.CodeTimeout || e.Status() != 504 {
		t.Fatalf("got %v, want ETIMEOUT", err)
	}
}
