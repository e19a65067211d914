package orchestrator

import (
	"net/url"

	"github.com/PuerkitoBio/goquery"
)

// DataRule is one Microlink-compatible custom rule: `data.<name>.selector`…
type DataRule struct {
	Name string
}

// dataParam recognises `data.*` and `filter`.
func dataParam(name string) (string, bool) { return "", false }

// parseData reads the `data.*` rules and `filter` into req.Data and req.Filter.
func parseData(q *query, req *Request) error { return nil }

// applyDataRules runs the rules over the document; the results are merged
// into the answer's data in rule order.
func applyDataRules(doc *goquery.Document, base *url.URL, rules []DataRule) []field { return nil }

// applyFilter keeps only the paths of `filter` (e.g. "title,image.url").
func applyFilter(d data, filter []string) data { return d }
