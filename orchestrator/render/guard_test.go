package render

import "testing"

func TestTheGuardsWordIsReadOnlyWhereTheGuardAnswers(t *testing.T) {
	cases := []struct {
		name, target, value, want string
	}{
		{"a plain http answer carries the guard's word", "http://example.com/p?q=1", "refused", "refused"},
		{"an https answer came through a tunnel, from the target", "https://example.com/p", "refused", ""},
		{"an https answer's listing is the target's too", "HTTPS://example.com/", "blocked", ""},
		{"no header is no word", "http://example.com/", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := guardHeader(tc.target, tc.value); got != tc.want {
				t.Errorf("guardHeader(%q, %q) = %q, want %q", tc.target, tc.value, got, tc.want)
			}
		})
	}
}
