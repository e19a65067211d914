package orchestrator

import (
	"net/http"
	"strings"
	"testing"
)

// An answer kept for one request must not answer another that asks for
// something it does not hold: a plain answer keeps no rule's value for
// `embed`, so `embed=<rule>` after it renders its own.
func TestEmbedOfARuleAfterThePlainQueryIsNotServedFromItsEntry(t *testing.T) {
	app := startApp(t, nil)
	pages := newPageServer(t, map[string]http.HandlerFunc{
		"/": html(`<!doctype html><title>Kept apart</title><main><p>The body text.</p></main>`),
	})
	rule := "data.body.selector=main&data.body.attr=text"
	plain := app.get(pages.URL+"/", rule)
	if plain.HTTP != 200 {
		t.Fatalf("plain query: %d %s %s", plain.HTTP, plain.Code, plain.Message)
	}
	embed := app.get(pages.URL+"/", rule+"&embed=body")
	if embed.HTTP != 200 || !strings.Contains(string(embed.Raw), "The body text.") {
		t.Fatalf("embed=body after the plain query: %d %s %q", embed.HTTP, embed.Header.Get("x-cache-status"), embed.Raw)
	}
	again := app.get(pages.URL+"/", rule+"&embed=body")
	if again.HTTP != 200 || again.Header.Get("x-cache-status") != "HIT" {
		t.Errorf("embed=body a second time: %d, x-cache-status %q", again.HTTP, again.Header.Get("x-cache-status"))
	}
}
