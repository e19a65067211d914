package api

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestLogsNameATargetByItsSchemeHostAndPathOnly(t *testing.T) {
	cases := []struct{ name, raw, want string }{
		{"a query is dropped", "https://example.com/a/b?token=SECRET", "https://example.com/a/b"},
		{"a fragment is dropped", "https://example.com/a#SECRET", "https://example.com/a"},
		{"backslashes read as a browser reads them", `http:\\host.example\page?token=SECRET`, "http://host.example/page"},
		{"a missing pair of slashes", "http:host.example/?SECRET", "http://host.example/"},
		{"a leading space", " https://example.com/p?SECRET", "https://example.com/p"},
		{"an escape that is not one stays escaped in the path", "https://example.com/%zz?SECRET", "https://example.com/%25zz"},
		{"user-info is unparseable", "https://user:SECRET@example.com/", "<unparseable>"},
		{"a host with a space is unparseable", "https://exa mple.com/?SECRET", "<unparseable>"},
		{"no scheme is unparseable", "example.com/?SECRET", "<unparseable>"},
		{"broken UTF-8 is unparseable", "https://example.com/\xff?SECRET", "<unparseable>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := redactTarget(tc.raw)
			if got != tc.want && !(tc.want != "<unparseable>" && strings.HasPrefix(got, tc.want)) {
				t.Errorf("redactTarget(%q) = %q, want %q", tc.raw, got, tc.want)
			}
			if strings.Contains(got, "SECRET") {
				t.Errorf("redactTarget(%q) = %q carries the secret", tc.raw, got)
			}
		})
	}
}

// FuzzLoggedTargetCarriesNoQuery holds that whatever a caller sends as
// `url`, no byte after its first `?` or `#` reaches the log line, and
// neither does user-info.
func FuzzLoggedTargetCarriesNoQuery(f *testing.F) {
	for _, seed := range []string{"https://example.com/a", `http:\\h\p`, "http:h/", " http://h/%zz", "http://a b/", "https://u@h/", "http://[::1]:80/x"} {
		f.Add(seed, "token=SECRET")
	}
	const marker = "QZXJ"
	f.Fuzz(func(t *testing.T, prefix, query string) {
		if strings.Contains(prefix, marker) || strings.ContainsAny(prefix, "?#@") {
			return
		}
		got := redactTarget(prefix + "?" + marker + query)
		if strings.Contains(got, marker) {
			t.Fatalf("the log names %q, which carries the query of %q", got, prefix+"?"+marker+query)
		}
		for _, r := range got {
			if r < 0x21 || r == 0x7f {
				t.Fatalf("the log names %q, with a control character or space", got)
			}
		}
	})
}

// Whatever error path writes a line, and in either log format, a URL in
// it keeps only its scheme, host and path.
func TestLogLinesCarryNoURLsQueriesOrUserInfo(t *testing.T) {
	err := fmt.Errorf("render: %w", fmt.Errorf(`the egress guard could not fetch https://user:SECRET1@example.com/a/b?token=SECRET2#SECRET3: "blocked"; Get "http://example.com/x?k=SECRET4": EOF`))
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			var h slog.Handler = slog.NewTextHandler(&buf, nil)
			if format == "json" {
				h = slog.NewJSONHandler(&buf, nil)
			}
			log := newRedactingLogger(slog.New(h)).With("first", "ws://example.com/s?SECRET5")
			log.Error("request failed at http://example.com/m?SECRET6", "err", err, "text", err.Error(),
				slog.Group("g", "u", "https://example.com/?SECRET7"))
			line := buf.String()
			if strings.Contains(line, "SECRET") {
				t.Errorf("the log line carries a secret: %s", line)
			}
			for _, want := range []string{"https://example.com/a/b", "http://example.com/x", "ws://example.com/s"} {
				if !strings.Contains(line, want) {
					t.Errorf("the log line lost %s: %s", want, line)
				}
			}
		})
	}
}
