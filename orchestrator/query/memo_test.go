package query

import (
	"fmt"
	"net/url"
	"testing"
)

func TestParseMemo(t *testing.T) {
	var pm Memo
	limits := DefaultLimits()
	q := "url=" + url.QueryEscape("https://example.com/a?b=1") + "&pdf=true&ping=false"

	r1, k1, err := pm.Parse(q, limits)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Parse(q, limits)
	if k1 != Key(want) {
		t.Fatalf("key %s, want ParseRequest's %s", k1, Key(want))
	}
	r2, k2, err := pm.Parse(q, limits)
	if err != nil || r2 != r1 || k2 != k1 {
		t.Fatalf("the second parse of the same query was not remembered (%p vs %p, %s vs %s, %v)", r2, r1, k2, k1, err)
	}

	t.Run("a query with forwarded headers is never remembered", func(t *testing.T) {
		hq := "url=https%3A%2F%2Fexample.com%2F&headers.cookie=secret"
		a, _, err := pm.Parse(hq, limits)
		if err != nil {
			t.Fatal(err)
		}
		b, _, _ := pm.Parse(hq, limits)
		if a == b {
			t.Error("the same request came back: the caller's header values were kept")
		}
		if _, ok := pm.m[hq]; ok {
			t.Error("the query with headers is in the memo")
		}
	})
	t.Run("an invalid query fails every time and is not remembered", func(t *testing.T) {
		for range 2 {
			if _, _, err := pm.Parse("url=ftp%3A%2F%2Fx", limits); err == nil {
				t.Fatal("an ftp target parsed")
			}
		}
		if _, ok := pm.m["url=ftp%3A%2F%2Fx"]; ok {
			t.Error("the failed query is in the memo")
		}
	})
	t.Run("a full memo starts again rather than grow", func(t *testing.T) {
		for i := range parseMemoSize + 10 {
			if _, _, err := pm.Parse(fmt.Sprintf("url=https%%3A%%2F%%2Fexample.com%%2F%d", i), limits); err != nil {
				t.Fatal(err)
			}
		}
		if n := len(pm.m); n > parseMemoSize || n == 0 {
			t.Errorf("%d queries remembered, want 1 to %d", n, parseMemoSize)
		}
	})
}
