package render

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/glimpse/glimpse/orchestrator/meta"
	"github.com/glimpse/glimpse/orchestrator/query"
)

// isJSONType reports whether a response of media type mt is JSON.
func isJSONType(mt string) bool {
	mt = strings.ToLower(mt)
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// staticJSON answers a JSON target from the plain fetch. A browser shows
// JSON as its text in a <pre>, and nothing more: the document made here
// is that one, so the data rules (`attr: json` above all) read the same
// either way, without a browser. A body past maxStaticBytes is left to
// the browser, as an HTML page's would be cut.
func (r *Renderer) staticJSON(req *query.Request, resp *http.Response, final *url.URL, chain []Redirect, site site, start time.Time) (*Page, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxStaticBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNeedsBrowser, err)
	}
	if len(body) > maxStaticBytes {
		return nil, fmt.Errorf("%w: the JSON is larger than %d bytes", errNeedsBrowser, maxStaticBytes)
	}
	doc := textDocument(strings.ToValidUTF8(string(body), "\uFFFD"))
	res := meta.Extract(doc, final)
	r.m.Phase.WithLabelValues("navigate").Observe(time.Since(start).Seconds())
	final.Fragment = req.Target.Fragment
	return &Page{URL: final, Doc: doc, Meta: &res, FetchMode: "fetch", log: r.log, m: r.m, Response: answeredBy(resp, chain),
		Assets: httpSource{f: r.static, site: site, headers: req.Headers}}, nil
}

// textDocument is the document a browser makes of a text response: its
// text in a <pre> in the body.
func textDocument(text string) *goquery.Document {
	root := &html.Node{Type: html.DocumentNode}
	htmlEl := &html.Node{Type: html.ElementNode, Data: "html", DataAtom: atom.Html}
	head := &html.Node{Type: html.ElementNode, Data: "head", DataAtom: atom.Head}
	body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	pre := &html.Node{Type: html.ElementNode, Data: "pre", DataAtom: atom.Pre}
	pre.AppendChild(&html.Node{Type: html.TextNode, Data: text})
	body.AppendChild(pre)
	htmlEl.AppendChild(head)
	htmlEl.AppendChild(body)
	root.AppendChild(htmlEl)
	return goquery.NewDocumentFromNode(root)
}
