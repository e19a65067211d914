package meta

import (
	"net/url"
	"strings"
	"testing"
)

func TestNormalizeAuthorReadsBylinesOnly(t *testing.T) {
	page, _ := url.Parse("https://society.example/people/ada")
	cases := []struct {
		name, in string
		visible  bool
		want     string
	}{
		{"a byline gives the name", "By Ada Lovelace", true, "Ada Lovelace"},
		{"a visible byline's clause is dropped", "By Ada Lovelace in Mathematics", true, "Ada Lovelace"},
		{"the page's host is no author", "society.example", false, ""},
		{"a byline at the length bound is read", "By Ada Lovelace in " + strings.Repeat("x", maxByline-len("By Ada Lovelace in ")), true, "Ada Lovelace"},
		// Its cleaning would take seconds on megabytes a rule may give.
		{"a longer text is no byline", "By Ada Lovelace in " + strings.Repeat("x", maxByline), true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := NormalizeAuthor(tc.in, page, tc.visible); got != tc.want {
				t.Errorf("NormalizeAuthor(%.60q…) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
