package answer

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/glimpse/glimpse/orchestrator/query"
)

// jsonTarget is what a browser, and glimpse's plain fetch, make of a JSON
// response: its text in a <pre>.
const jsonTarget = `<html><head></head><body><pre>{"name": "pikachu", "id": 25, "weight": 60.0,
  "abilities": [{"name": "static"}, {"name": "lightning-rod"}], "big": 12345678901234567890, "z": null, "a": true}</pre></body></html>`

const ldPage = `<html><head><script type="application/ld+json">{"@type": "Product", "name": "Desk", "offers": {"price": "12.50"}}</script>
<script type="application/ld+json">{ not json }</script></head><body><p>x</p></body></html>`

func TestAttrJSON(t *testing.T) {
	runDataCases(t, jsonTarget, "https://api.example/pokemon/pikachu", []dataCase{
		{"a rule without a selector reads the whole JSON target, keys in order, numbers exact",
			"data.json.attr=json",
			`{"json":{"name":"pikachu","id":25,"weight":60.0,"abilities":[{"name":"static"},{"name":"lightning-rod"}],"big":12345678901234567890,"z":null,"a":true}}`, nil},
		{"the <pre> a browser shows the JSON in, selected, reads the same", "data.json.selector=pre&data.json.attr=json",
			`{"json":{"name":"pikachu","id":25,"weight":60.0,"abilities":[{"name":"static"},{"name":"lightning-rod"}],"big":12345678901234567890,"z":null,"a":true}}`, nil},
	})
	runDataCases(t, ldPage, "https://shop.example/desk", []dataCase{
		{"a selector's match is read as JSON", `data.ld.selector=script[type="application/ld%2Bjson"]&data.ld.attr=json`,
			`{"ld":{"@type":"Product","name":"Desk","offers":{"price":"12.50"}}}`, nil},
		{"text that is not JSON gives no value, so the fallback is tried",
			`data.ld.selectorAll=script[type="application/ld%2Bjson"]&data.ld.attr=json`,
			`{"ld":[{"@type":"Product","name":"Desk","offers":{"price":"12.50"}}]}`, nil},
		{"an HTML page read as JSON is null", "data.page.attr=json", `{"page":null}`, nil},
	})
}

func TestAttrJSONIsBounded(t *testing.T) {
	big := `<html><body><pre>[` + strings.Repeat(`"xxxxxxxxxxxxxxxx",`, 1000) + `1]</pre></body></html>`
	doc := mustDoc(t, big)
	req := mustParse(t, "data.all.attr=json")
	_, _, err := applyDataRules(t.Context(), doc, nil, req.Data, 4096, nil)
	if err == nil || !strings.Contains(err.Error(), "4096 bytes") {
		t.Errorf("err %v, want the data bound named", err)
	}
}

func mustDoc(t *testing.T, page string) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func mustParse(t *testing.T, q string) *query.Request {
	t.Helper()
	req, err := query.Parse("url=https%3A%2F%2Fexample.com%2F&"+q, query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return req
}
