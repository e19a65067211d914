package query

import (
	"net/url"
	"testing"
)

func TestCacheKeysTellApartWhatChangesTheAnswer(t *testing.T) {
	target := func(u string) string { return "url=" + url.QueryEscape(u) }
	rule := "&data.body.selector=body&data.body.attr=text"
	cases := []struct {
		name string
		a, b string
		same bool
	}{
		{"an embed of a data rule is not the plain answer",
			target("https://example.com/") + rule, target("https://example.com/") + rule + "&embed=body", false},
		{"embeds of two different rules are two answers",
			target("https://example.com/") + rule + "&data.head.selector=head&embed=body",
			target("https://example.com/") + rule + "&data.head.selector=head&embed=head", false},
		{"an embed of the PDF shares the plain PDF answer, which keeps the file",
			target("https://example.com/") + "&pdf=true", target("https://example.com/") + "&pdf=true&embed=pdf.url", true},
		{"an embed of the image shares the plain answer",
			target("https://example.com/"), target("https://example.com/") + "&embed=image.url", true},
		{"values of one name in another order are another page",
			target("https://example.com/?a=1&a=2"), target("https://example.com/?a=2&a=1"), false},
		{"parameters of different names in another order are one page",
			target("https://example.com/?a=1&b=2"), target("https://example.com/?b=2&a=1"), true},
		{"one name's order is kept among other names",
			target("https://example.com/?a=1&b=0&a=2"), target("https://example.com/?b=0&a=1&a=2"), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Parse(tc.a, Limits{})
			if err != nil {
				t.Fatalf("%s: %v", tc.a, err)
			}
			b, err := Parse(tc.b, Limits{})
			if err != nil {
				t.Fatalf("%s: %v", tc.b, err)
			}
			if got := Key(a) == Key(b); got != tc.same {
				t.Errorf("same key = %t, want %t\n%s\n%s", got, tc.same, tc.a, tc.b)
			}
		})
	}
}
