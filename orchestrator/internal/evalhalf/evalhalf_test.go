package evalhalf

import "testing"

func TestKeepIn(t *testing.T) {
	for _, c := range []struct {
		half, name string
		want       bool
	}{
		{"", "0001-article-a", true},
		{"all", "0002-forum-b", true},
		{"even", "0002-forum-b", true},
		{"even", "0001-article-a", false},
		{"odd", "0001-article-a", true},
		{"odd", "0002-forum-b", false},
		{"ODD", "4913-service-c", true},
		{"even", "no-number", true},
		{"odd", "no-number", false},
	} {
		if got := KeepIn(c.half, c.name); got != c.want {
			t.Errorf("KeepIn(%q, %q) = %v, want %v", c.half, c.name, got, c.want)
		}
	}
}
