package markdown

import (
	"strings"
	"testing"
)

func TestArticleLeavesOutABreadcrumbTrailByItsShape(t *testing.T) {
	body := strings.Repeat("The night ferry crosses in four hours and docks before the first train leaves the harbour. ", 6)
	page := func(parts ...string) string {
		return `<!doctype html><html><head><title>Ferries - Example</title></head><body>` + pageHeader + `<main>` +
			strings.Join(parts, `<p>`+body+`</p>`) + `<p>` + body + `</p></main>` + pageFooter + `</body></html>`
	}
	md := article(t, page(
		`<div class="crumbs"><a href="/">Home</a> › <a href="/guides/">Guides</a> › Night ferries</div><h1>Night ferries</h1>`,
		`<ul class="path"><li><a href="/products/">Products</a>›</li><li><a href="https://www.example.com/products/boats/">Boats</a>›</li><li>Ferries</li></ul>`,
		`<table><tr><td><span><a href="/forum">Ferry Forum</a></span> <span>&gt; <a href="/forum/f13">Timetables</a></span> <span>&gt; <a href="/forum/f14">Winter</a></span></td></tr></table>`,
		`<p><a href="/">Ferry News</a> / <a href="/best/">Best of the Coast</a> / <a href="/best/ferries/">Best ferries</a></p>`,
		`<p><a href="/gear/bag">Sleeping bag</a> / <a href="/gear/quilt">Backpacking quilt</a></p>`,
		`<p>Open <a href="/help/file">File</a> &gt; <a href="/help/save">Save</a> to keep a copy of the timetable.</p>`,
		`<p><a href="https://trust.example.org/">Harbour Trust</a> › <a href="https://trust.example.org/reports">Reports</a></p>`,
		`<h2><a href="/routes">Routes</a> › <a href="/routes/north">North</a></h2>`,
		`<p>Choose <a href="/help/file">File</a> › <a href="/help/print">Print</a></p>`,
		`<p><a href="/ships">Ships</a> › built for <a href="/ships/north">the North Sea</a></p>`,
		`<p><a href="/news/1">The ferry company announced its new winter timetable today</a> » <a href="/news">News</a></p>`,
		`<p><a href="/a">Ports</a> › <a href="/b">North</a> › the port of Leith, where the night ferry from the islands has docked since the spring of 1890, and which the company plans to enlarge in the coming years</p>`,
	))
	checkHolds(t, md,
		[]string{"The night ferry crosses", "[Sleeping bag](https://example.com/gear/bag) / [Backpacking quilt](https://example.com/gear/quilt)",
			"Open [File](https://example.com/help/file) > [Save](https://example.com/help/save) to keep", "[Harbour Trust](https://trust.example.org/) › [Reports]",
			"## [Routes](https://example.com/routes) › [North]", "announced its new winter timetable today](https://example.com/news/1) »", "the port of Leith",
			"Choose [File](https://example.com/help/file) › [Print]", "[Ships](https://example.com/ships) › built for [the North Sea]"},
		[]string{"[Guides]", "[Products]", "[Boats]", "Ferry Forum", "[Timetables]", "[Best of the Coast]"})
}
