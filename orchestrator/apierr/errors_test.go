package apierr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/sidecar/guard"
)

func TestEveryCodeHasTheStatusOfTheAPITable(t *testing.T) {
	cases := []struct {
		code   string
		status int
		body   string
	}{
		{CodeInvalidURL, 400, "fail"},
		{CodeForbiddenURL, 400, "fail"},
		{CodeInvalidQuery, 400, "fail"},
		{CodePageRange, 400, "fail"},
		{CodeMaxRedirects, 400, "fail"},
		{CodeAuth, 401, "fail"},
		{CodeRate, 429, "fail"},
		{CodeBusy, 503, "error"},
		{CodeTimeout, 504, "error"},
		{CodeFatal, 500, "error"},
		{CodeNotFound, 404, "fail"},
		{CodeMethod, 405, "fail"},
		{CodeFetch, 424, "fail"},
		{CodeStorage, 503, "error"},
		{CodeClient, 499, "fail"},
		{CodeTooLarge, 431, "fail"},
		{"EUNHEARDOF", 500, "error"},
	}
	for _, tc := range cases {
		t.Run(tc.code+" answers "+fmt.Sprint(tc.status), func(t *testing.T) {
			e := New(tc.code, "Change something.")
			if e.Status() != tc.status {
				t.Fatalf("status %d, want %d", e.Status(), tc.status)
			}
			env := e.Envelope("local:1", testDocs)
			if env.Status != tc.body {
				t.Errorf("envelope status %q, want %q", env.Status, tc.body)
			}
			if want := testDocs + "#" + strings.ToLower(tc.code); env.More != want {
				t.Errorf("more is %q, want %q", env.More, want)
			}
		})
	}
}

// testDocs stands for the errors page a server links to.
const testDocs = "https://glimpse.example/docs/errors"

func TestEnvelopeHasTheShapeOfAPIMd(t *testing.T) {
	e := New(CodeInvalidURL, "The URL `no` is not valid: it needs a protocol (http or https) and a hostname.")
	e.Data = map[string]any{"url": "no"}
	e.Err = errors.New("internal detail that must stay in the log")
	b, err := json.Marshal(e.Envelope("local:abc", testDocs))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"status":  "fail",
		"code":    "EINVALURL",
		"message": "The URL `no` is not valid: it needs a protocol (http or https) and a hostname.",
		"more":    "https://glimpse.example/docs/errors#einvalurl",
		"data":    map[string]any{"url": "no"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("envelope is %s, want %v", b, want)
	}
	if strings.Contains(string(b), "internal detail") || strings.Contains(string(b), "local:abc") {
		t.Errorf("the envelope leaks the cause or the request id: %s", b)
	}
}

func TestEnvelopeDetails(t *testing.T) {
	t.Run("an error without data still has a data object", func(t *testing.T) {
		b, _ := json.Marshal(New(CodeAuth, "Send a known `x-api-key`.").Envelope("id", testDocs))
		if !strings.Contains(string(b), `"data":{}`) {
			t.Errorf("got %s", b)
		}
	})
	t.Run("EFATAL's message ends with the request id", func(t *testing.T) {
		env := Fatal(errors.New("disk on fire")).Envelope("eu:1234", testDocs)
		if !strings.HasSuffix(env.Message, "(request eu:1234)") {
			t.Errorf("message %q does not end with the request id", env.Message)
		}
		if strings.Contains(env.Message, "disk on fire") {
			t.Errorf("message %q leaks the cause", env.Message)
		}
		if env.Status != "error" || env.Code != CodeFatal {
			t.Errorf("got %+v", env)
		}
	})
	t.Run("EFATAL without a request id has no empty suffix", func(t *testing.T) {
		if m := Fatal(io.EOF).Envelope("", testDocs).Message; strings.Contains(m, "(request") {
			t.Errorf("message %q", m)
		}
	})
	t.Run("other codes never carry the request id in the body", func(t *testing.T) {
		if m := New(CodeBusy, "Retry shortly.").Envelope("eu:1", testDocs).Message; m != "Retry shortly." {
			t.Errorf("message %q", m)
		}
	})
	t.Run("storage that is away is a 503 of its own, not EFATAL", func(t *testing.T) {
		e := New(CodeStorage, "Storage is unreachable; retry shortly.")
		if env := e.Envelope("x", testDocs); env.Status != "error" || e.Status() != 503 || strings.Contains(env.Message, "(request") {
			t.Errorf("got %d %+v", e.Status(), env)
		}
	})
	t.Run("the docs page can be any page", func(t *testing.T) {
		if m := New(CodeRate, "Wait.").Envelope("", "https://docs.internal/api.md").More; m != "https://docs.internal/api.md#erate" {
			t.Errorf("more is %q", m)
		}
	})
}

func TestAsErrorMapsEveryKindOfError(t *testing.T) {
	own := New(CodeInvalidQuery, "`pdf.scale` must be a number from 0.1 to 2, got `abc`.")
	refused := &guard.RefusedError{Host: "intranet.test", Addr: netip.MustParseAddr("10.0.0.1"), Reason: "private (RFC 1918)"}
	cases := []struct {
		name string
		err  error
		code string
		msg  string
		same *Error
	}{
		{name: "an *Error is returned as it is", err: own, code: CodeInvalidQuery, same: own},
		{name: "a wrapped *Error is found", err: fmt.Errorf("parsing: %w", own), code: CodeInvalidQuery, same: own},
		{name: "a refusal inside a dial error is EFORBIDDENURL", err: &net.OpError{Op: "dial", Err: refused},
			code: CodeForbiddenURL, msg: "private (RFC 1918)"},
		{name: "a failed lookup is EINVALURL", err: fmt.Errorf("fetch: %w", &guard.LookupError{Host: "nowhere.test", Err: errors.New("no such host")}),
			code: CodeInvalidURL, msg: "`nowhere.test` is not valid: its host does not resolve"},
		{name: "a passed deadline is ETIMEOUT", err: fmt.Errorf("navigate: %w", context.DeadlineExceeded), code: CodeTimeout, msg: "`timeout`"},
		{name: "anything else is EFATAL", err: io.ErrUnexpectedEOF, code: CodeFatal},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := From(tc.err)
			if e.Code != tc.code || e.Status() != Status(tc.code) {
				t.Fatalf("got %s/%d, want %s", e.Code, e.Status(), tc.code)
			}
			if tc.same != nil && e != tc.same {
				t.Error("a new error was made instead of returning the one in the chain")
			}
			if !strings.Contains(e.Message, tc.msg) {
				t.Errorf("message %q does not contain %q", e.Message, tc.msg)
			}
			if tc.same == nil && !errors.Is(e, tc.err) {
				t.Error("the cause is not kept for the log")
			}
			if strings.Contains(e.Message, "10.0.0.1") {
				t.Errorf("message %q reveals an internal address", e.Message)
			}
		})
	}
	t.Run("nil stays nil", func(t *testing.T) {
		if From(nil) != nil {
			t.Error("From(nil) is not nil")
		}
	})
	t.Run("an *Error built by hand gets the code's status", func(t *testing.T) {
		if e := From(&Error{Code: CodeRate, Message: "Wait."}); e.Status() != 429 {
			t.Errorf("status %d", e.Status())
		}
	})
}

func TestErrorStringIsForTheLog(t *testing.T) {
	cause := errors.New("connection reset by peer")
	e := Fatal(cause)
	if !strings.Contains(e.Error(), "EFATAL") || !strings.Contains(e.Error(), "connection reset by peer") {
		t.Errorf("Error() = %q, want the code and the cause", e.Error())
	}
	if !errors.Is(e, cause) || errors.Unwrap(e) != cause {
		t.Error("Unwrap does not reach the cause")
	}
	if s := New(CodeAuth, "Unknown key.").Error(); s != "EAUTH: Unknown key." {
		t.Errorf("Error() = %q", s)
	}
}

func TestCallersValuesAreShownSafely(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"plain text is quoted in backticks", "abc", "`abc`"},
		{"control bytes are made visible", "a\nb\x00c\x7f", "`a\\x0ab\\x00c\\x7f`"},
		{"broken UTF-8 is made visible", "a\xffb", "`a\\xffb`"},
		{"invisible characters are made visible", "a\u200bb", "`a\\u200bb`"},
		{"non-ASCII letters stay", "bücher", "`bücher`"},
		{"a long value is cut with an ellipsis", strings.Repeat("é", 500), "`" + strings.Repeat("é", maxShown) + "…`"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Show(tc.in); got != tc.want {
				t.Errorf("Show(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	t.Run("clip never splits a character", func(t *testing.T) {
		got := Clip(strings.Repeat("é", 10), 5)
		if got != "éé…" {
			t.Errorf("clip = %q", got)
		}
	})
}

// TestOnlyTransientFailuresInviteARetry holds the table of
// docs/api.md#which-failures-are-worth-a-retry: every code against the
// statuses that got (under @microlink/mql and the microlink CLI) retries by
// itself: a failure that a second try does not mend must not triple the
// traffic to the target.
func TestOnlyTransientFailuresInviteARetry(t *testing.T) {
	transient := map[string]bool{
		CodeRate:    true, // after retry-after
		CodeBusy:    true,
		CodeTimeout: true,
		CodeFatal:   true,
		CodeStorage: true,
	}
	for _, code := range Codes() {
		t.Run(code, func(t *testing.T) {
			retried := slices.Contains(ClientRetried, Status(code))
			if retried != transient[code] {
				t.Errorf("%s answers %d, which clients retry: %t; want %t", code, Status(code), retried, transient[code])
			}
		})
	}
}

func TestTheErrorsPageDocumentsEveryCodeUnderItsAnchor(t *testing.T) {
	page := string(DocsPage())
	documented := map[string]bool{}
	for _, d := range Docs() {
		documented[d.Code] = true
		if d.Status != Status(d.Code) || d.When == "" || d.Retry == "" {
			t.Errorf("%s is documented as %+v", d.Code, d)
		}
	}
	for _, code := range Codes() {
		if !documented[code] {
			t.Errorf("%s has a status but no section on the errors page", code)
		}
		more := New(code, "x").Envelope("", DocsPath).More
		anchor := more[strings.Index(more, "#")+1:]
		if !strings.Contains(page, `<h2 id="`+anchor+`">`+code+`</h2>`) {
			t.Errorf("more of %s is %q, but the page has no section %q", code, more, anchor)
		}
	}
	if strings.Contains(page, "`") {
		t.Errorf("the page shows a backquote instead of code: %s", page)
	}
}
