package answer

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/meta"
	"github.com/glimpse/glimpse/orchestrator/query"
)

func TestOEmbedURLCarriesTheCallersSizes(t *testing.T) {
	tests := []struct {
		name, in string
		o        *query.IframeOptions
		want     string
	}{
		{"no sizes: the endpoint as declared", "https://p.example/oembed?url=https%3A%2F%2Fa.example%2Fv%2F1&format=json", &query.IframeOptions{},
			"https://p.example/oembed?url=https%3A%2F%2Fa.example%2Fv%2F1&format=json"},
		{"both sizes added", "https://p.example/oembed?url=x", &query.IframeOptions{MaxWidth: 350, MaxHeight: 200},
			"https://p.example/oembed?maxheight=200&maxwidth=350&url=x"},
		{"a size the page's link carries is replaced", "https://p.example/oembed?url=x&maxwidth=1000", &query.IframeOptions{MaxWidth: 320},
			"https://p.example/oembed?maxwidth=320&url=x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := oembedURL(tc.in, tc.o)
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestFetchOEmbed(t *testing.T) {
	const tweet = `<blockquote class="twitter-tweet"><p>hi</p></blockquote><script async src="https://platform.example/widgets.js" charset="utf-8"></script>`
	jsonAnswer, _ := json.Marshal(map[string]any{"version": "1.0", "type": "rich", "html": tweet, "width": 550})
	tests := []struct {
		name, body, ct, format string
		want                   *Iframe
		err                    string
	}{
		{"the JSON form, with its script listed", string(jsonAnswer), "application/json", "json",
			&Iframe{HTML: tweet, Scripts: []IframeScript{{Src: "https://platform.example/widgets.js", Async: true, Charset: "utf-8"}}}, ""},
		{"the XML form", `<?xml version="1.0" encoding="utf-8"?><oembed><version>1.0</version><type>video</type><html>&lt;iframe src="https://v.example/e/1"&gt;&lt;/iframe&gt;</html></oembed>`,
			"text/xml", "xml", &Iframe{HTML: `<iframe src="https://v.example/e/1"></iframe>`, Scripts: []IframeScript{}}, ""},
		{"XML by its content type though the link said JSON", `<oembed><type>rich</type><html>&lt;div&gt;x&lt;/div&gt;</html></oembed>`,
			"application/xml; charset=utf-8", "json", &Iframe{HTML: `<div>x</div>`, Scripts: []IframeScript{}}, ""},
		{"a photo has no HTML to embed", `{"type":"photo","url":"https://p.example/a.jpg"}`, "application/json", "json", nil, "has no html"},
		{"an answer that is not JSON", `<html>oops</html>`, "text/html", "json", nil, "not valid json"},
		{"an XML entity bomb is refused, not expanded",
			`<?xml version="1.0"?><!DOCTYPE oembed [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><oembed><html>&c;</html></oembed>`,
			"text/xml", "xml", nil, "not valid xml"},
		{"an answer past the byte bound", `{"html":"` + strings.Repeat("x", maxOEmbedBytes) + `"}`, "application/json", "json", nil, "larger than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := fixedSource{body: bytes.NewReader([]byte(tc.body)), contentType: tc.ct}
			got, err := fetchIframe(context.Background(), src, []meta.OEmbedLink{{URL: "https://p.example/oembed", Format: tc.format}}, &query.IframeOptions{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(tc.want)
			if string(g) != string(w) {
				t.Errorf("got %s\nwant %s", g, w)
			}
		})
	}
}
