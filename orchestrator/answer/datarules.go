package answer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/mail"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/markdown"
	"github.com/glimpse/glimpse/orchestrator/meta"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/orchestrator/render"
)

// Bounds of one evaluation of the rules. They come from glimpse, never from
// the page: nested `selectorAll` levels multiply what a small page yields.
const (
	// maxDataListItems bounds the values of one `selectorAll`.
	maxDataListItems = 1000
	// maxDataWork bounds the elements matched across every rule and level.
	maxDataWork = 200_000
	// maxDataVisits bounds the nodes the selectors walk across every rule
	// and level, about half a second of matching. A selector that matches
	// nothing still walks all of its scope, so fallbacks and selector
	// arrays under nested `selectorAll` multiply walks that find nothing.
	maxDataVisits = 50_000_000
	// DefaultMaxDataBytes bounds what the rules put in the answer.
	DefaultMaxDataBytes = 4 << 20
	// valueOverhead is what a value costs in the answer beyond its text:
	// quotes, a key, separators.
	valueOverhead = 8
	// maxRegexpBytes bounds a value the `regexp` type compiles; a longer
	// one is no pattern a page means. Compiling costs far more per byte
	// than reading, most for Unicode classes (about 5 ms a kilobyte of
	// `[\p{L}\p{N}]`), so maxRegexpWork bounds what one run compiles.
	maxRegexpBytes = 2 << 10
	maxRegexpWork  = 32 << 10
)

// dataRun is one evaluation of the rules over a document. Its work and
// output count across every rule and nesting level; the first limit
// passed, or the request's deadline, ends it.
type dataRun struct {
	ctx       context.Context
	doc       *goquery.Document
	pageURL   *url.URL
	base      *url.URL
	now       time.Time
	matchers  map[string]goquery.Matcher
	evaluated map[string]render.Evaluation
	page      *meta.Result // the page's own metadata, for whole-page rules; read once when asked for
	assets    []dataAsset  // the asset objects given, for probing once the run is over
	rule      string       // the top-level rule being read, for the error
	work      int
	bytes     int
	regexps   int                 // bytes compiled by the `regexp` type
	visits    int                 // nodes walked by selectors
	sizes     map[*html.Node]int  // each node's count of nodes under it, itself included; made when first needed
	inert     map[*html.Node]bool // the nodes inside a <template>; made when first needed
	maxBytes  int
	err       error
}

// dataAsset is an asset object a rule gave, and which kind of file it
// names: an image (image, logo) or a media file (video, audio).
type dataAsset struct {
	a     *Asset
	media bool
}

// applyDataRules runs the rules over the document; the results are merged
// into the answer's data in rule order. A rule whose every fallback finds
// nothing is null. Past a bound the error names the rule and the bound;
// past the deadline it is the context's.
// The asset objects it gave are returned for probing.
func applyDataRules(ctx context.Context, doc *goquery.Document, pageURL *url.URL, rules []query.DataRule, maxBytes int,
	evaluated map[string]render.Evaluation) ([]field, []dataAsset, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxDataBytes
	}
	if pageURL == nil {
		pageURL = &url.URL{}
	}
	run := &dataRun{ctx: ctx, doc: doc, pageURL: pageURL, base: dataBase(doc, pageURL), now: time.Now(), matchers: map[string]goquery.Matcher{},
		evaluated: evaluated, maxBytes: maxBytes}
	out := make([]field, 0, len(rules))
	for _, r := range rules {
		run.rule = r.Name
		v := run.ruleValue(doc.Selection, r)
		if run.err != nil {
			return nil, nil, run.err
		}
		out = append(out, field{r.Name, v})
	}
	return out, run.assets, nil
}

// spend counts work and output, and reports whether the run may go on.
func (run *dataRun) spend(work, bytes int) bool {
	if run.err != nil {
		return false
	}
	run.work += work
	run.bytes += bytes
	switch {
	case run.work > maxDataWork:
		run.err = apierr.Query("data."+run.rule, "", "The rule `data.%s` matches more than %d elements across its levels; narrow its selectors or nest fewer `selectorAll`.",
			run.rule, maxDataWork)
	case run.bytes > run.maxBytes:
		run.err = apierr.Query("data."+run.rule, "", "The rules give more than %d bytes of values by `data.%s`; glimpse answers at most that much (GLIMPSE_MAX_DATA_BYTES): narrow the selectors, or read `text` rather than `html`.",
			run.maxBytes, run.rule)
	default:
		if err := run.ctx.Err(); err != nil {
			run.err = err
		}
	}
	return run.err == nil
}

// walk counts the nodes a selector walks in scope, and reports whether
// the run may go on.
func (run *dataRun) walk(scope *goquery.Selection) bool {
	if run.sizes == nil {
		run.sizes = map[*html.Node]int{}
		for _, n := range run.doc.Nodes {
			subtreeSizes(n, run.sizes)
		}
	}
	for _, n := range scope.Nodes {
		run.visits += run.sizes[n]
	}
	if run.visits > maxDataVisits && run.err == nil {
		run.err = apierr.Query("data."+run.rule, "", "The rules search more than %d elements by `data.%s`: each selector searches all of its match, found or not; give fewer fallbacks and selector arrays, or nest fewer `selectorAll`.",
			maxDataVisits, run.rule)
	}
	return run.err == nil
}

// subtreeSizes records the size of n's subtree and of every subtree in it.
func subtreeSizes(n *html.Node, sizes map[*html.Node]int) int {
	size := 1
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		size += subtreeSizes(c, sizes)
	}
	sizes[n] = size
	return size
}

// dataBase is what relative URLs in the document resolve against: its
// <base href> when usable, as in a browser, else the page's URL.
func dataBase(doc *goquery.Document, pageURL *url.URL) *url.URL {
	if pageURL == nil {
		pageURL = &url.URL{}
	}
	if href, ok := doc.Find("base[href]").First().Attr("href"); ok {
		if b, err := pageURL.Parse(strings.TrimSpace(href)); err == nil && (b.Scheme == "http" || b.Scheme == "https") && b.Host != "" {
			return b
		}
	}
	return pageURL
}

func (run *dataRun) ruleValue(scope *goquery.Selection, r query.DataRule) any {
	for _, q := range r.Fallbacks {
		if v := run.query(scope, q); v != nil || run.err != nil {
			return v
		}
	}
	return nil
}

func (run *dataRun) query(scope *goquery.Selection, q query.DataQuery) any {
	if !run.spend(0, 0) {
		return nil
	}
	if q.Evaluate != "" {
		return run.evaluation(q)
	}
	matches := scope
	if q.Selector != "" {
		m, ok := run.matchers[q.Selector]
		if !ok {
			c, err := cascadia.Compile(q.Selector)
			if err != nil {
				return nil // parseData compiled it already
			}
			m = c
			run.matchers[q.Selector] = m
		}
		if !run.walk(scope) {
			return nil
		}
		matches = scope.FindMatcher(m)
		if !run.spend(matches.Length(), 0) {
			return nil
		}
		// A template's content is inert, and a shadow tree the document
		// carries as one is out of a selector's reach in the browser.
		if inert := run.inertNodes(); len(inert) > 0 {
			matches = matches.FilterFunction(func(_ int, s *goquery.Selection) bool { return !inert[s.Nodes[0]] })
		}
	}
	if !q.All {
		if matches.Length() == 0 {
			return nil
		}
		return run.value(matches.First(), q)
	}
	var list []any
	matches.EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if v := run.value(s, q); v != nil {
			list = append(list, v)
		}
		return len(list) < maxDataListItems && run.err == nil
	})
	if len(list) == 0 {
		return nil
	}
	return list
}

// value reads one match: an object of nested rules, or one typed value.
func (run *dataRun) value(s *goquery.Selection, q query.DataQuery) any {
	if len(q.Fields) > 0 {
		obj := make(data, 0, len(q.Fields))
		found := false
		for _, f := range q.Fields {
			v := run.ruleValue(s, f)
			found = found || v != nil
			obj = append(obj, field{f.Name, v})
		}
		if !found {
			return nil
		}
		return obj
	}
	if q.Attr == "" {
		return run.pageValue(s, q)
	}
	for _, attr := range q.Attrs() {
		if v := run.read(s, attr, q); v != nil || run.err != nil {
			return v
		}
	}
	return nil
}

// read reads one attribute of a match and types it.
func (run *dataRun) read(s *goquery.Selection, attr string, q query.DataQuery) any {
	if attr == "json" {
		return run.json(s)
	}
	if attr == "markdown" {
		md := run.markdown(s)
		if md == "" || !run.spend(0, len(md)+valueOverhead) {
			return nil
		}
		return run.typed(md, true, attr, q.Type)
	}
	raw, present := readAttr(s, attr)
	if !run.spend(0, len(raw)+valueOverhead) {
		return nil
	}
	return run.typed(raw, present, attr, q.Type)
}

// pageValue is a top-level rule with neither a selector nor an attribute:
// under a metadata type, the page's own field of that name, as the
// metadata rules find it; otherwise the page's HTML.
func (run *dataRun) pageValue(s *goquery.Selection, q query.DataQuery) any {
	var field *string
	switch q.Type {
	case "title", "description", "author", "publisher", "lang", "date", "url", "image", "logo":
		if run.page == nil {
			res := meta.Extract(run.doc, run.pageURL)
			run.page = &res
		}
	}
	switch q.Type {
	case "title":
		field = run.page.Title
	case "description":
		field = run.page.Description
	case "author":
		field = run.page.Author
	case "publisher":
		field = run.page.Publisher
	case "lang":
		field = run.page.Lang
	case "date":
		field = run.page.Date
	case "url":
		field = run.page.URL
	case "image", "logo":
		cands := run.page.Image
		if q.Type == "logo" {
			cands = run.page.Logo
		}
		for _, c := range cands {
			if c.Source != "favicon.ico" || q.Type == "logo" {
				return run.typed(c.URL, true, "href", q.Type)
			}
		}
		return nil
	default:
		return run.read(s, "html", q)
	}
	if field == nil || !run.spend(0, len(*field)+valueOverhead) {
		return nil
	}
	return *field
}

// evaluation is the value an `evaluate` script gave, through the rule's
// type. A script that threw, or gave nothing JSON can hold, gives null.
func (run *dataRun) evaluation(q query.DataQuery) any {
	ev, ok := run.evaluated[q.Evaluate]
	if !ok {
		return nil // the page was never held: a render error says why
	}
	if ev.TooLarge > 0 {
		run.err = apierr.Query("data."+run.rule, "", "The `evaluate` script of `data.%s` gives %d bytes of JSON; glimpse takes at most %d from one script: return less, such as one field instead of a whole object.",
			run.rule, ev.TooLarge, render.MaxEvaluateBytes)
		return nil
	}
	if len(ev.Value) == 0 || !run.spend(0, len(ev.Value)+valueOverhead) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(ev.Value))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return nil
	}
	switch x := v.(type) {
	case nil:
		return nil
	case data, []any:
		// A structure is a value only where the type takes one.
		if q.Type == "auto" || q.Type == "object" {
			return x
		}
		return nil
	case string:
		if q.Type == "auto" {
			if strings.TrimSpace(x) == "" {
				return nil
			}
			return x
		}
		return run.typed(x, true, "evaluate", q.Type)
	case json.Number:
		if q.Type == "auto" || q.Type == "number" {
			if f, err := x.Float64(); err == nil {
				return f
			}
			return nil
		}
		return run.typed(x.String(), true, "evaluate", q.Type)
	case bool:
		if q.Type == "auto" || q.Type == "boolean" {
			return x
		}
		return run.typed(strconv.FormatBool(x), true, "evaluate", q.Type)
	}
	return nil
}

// markdown converts a match to Markdown. The whole page (a rule without a
// selector) gives its main content, the article and nothing else; a
// selector, `html` included, gives that element as it is. The output
// shares the rules' byte budget.
func (run *dataRun) markdown(s *goquery.Selection) string {
	opts := markdown.Options{MaxBytes: max(run.maxBytes-run.bytes, 1)}
	var md string
	var err error
	switch {
	case len(s.Nodes) == 1 && s.Nodes[0].Type == html.DocumentNode && isWhole(run.doc):
		md, err = markdown.Convert(run.ctx, s.Find("body"), run.base, opts)
		if err == nil {
			md = run.withDocumentTitle(md)
		}
	case len(s.Nodes) == 1 && s.Nodes[0].Type == html.DocumentNode:
		md, err = markdown.Article(run.ctx, run.doc, run.base, opts)
		if err == nil {
			md = run.withTitle(md, opts)
		}
	default:
		md, err = markdown.Convert(run.ctx, s, run.base, opts)
	}
	var tooLarge *markdown.TooLargeError
	switch {
	case err == nil:
		return md
	case errors.As(err, &tooLarge):
		run.err = apierr.Query("data."+run.rule, "", "The Markdown of `data.%s` would hold more than %d %s, more than glimpse answers; give a selector for part of the page.",
			run.rule, tooLarge.Limit, tooLarge.Unit)
	case errors.Is(err, markdown.ErrNoDocument):
	default:
		if run.err == nil {
			run.err = err
		}
	}
	return ""
}

// readAttr reads text, inner HTML, a form value or an attribute.
func readAttr(s *goquery.Selection, attr string) (string, bool) {
	switch attr {
	case "text":
		return strings.Join(strings.Fields(s.Text()), " "), true
	case "html":
		if rawText[goquery.NodeName(s)] {
			return s.Text(), true // as innerHTML gives it: the source, unescaped
		}
		h, err := s.Html()
		return strings.TrimSpace(h), err == nil
	case "outerHTML":
		h, err := goquery.OuterHtml(s)
		return strings.TrimSpace(h), err == nil
	case "val":
		switch goquery.NodeName(s) {
		case "textarea":
			return s.Text(), true
		case "select":
			opt := s.Find("option[selected]").First()
			if opt.Length() == 0 {
				opt = s.Find("option").First()
			}
			if v, ok := opt.Attr("value"); ok {
				return v, true
			}
			return strings.Join(strings.Fields(opt.Text()), " "), opt.Length() > 0
		}
		return s.Attr("value")
	}
	return s.Attr(attr)
}

// typed converts what was read with attr into typ; nil means the rule
// found no usable value, so the next attribute or fallback is tried.
func (run *dataRun) typed(raw string, present bool, attr, typ string) any {
	isAttribute := !slices.Contains(readers, attr)
	if !present {
		if typ == "boolean" && isAttribute {
			return false // a boolean attribute that is absent is false
		}
		return nil
	}
	v := strings.TrimSpace(raw)
	if typ != "auto" && typ != "string" && typ != "object" {
		v = htmlText(v, attr)
	}
	visible := attr == "text" || attr == "html" || attr == "outerHTML" || attr == "markdown"
	var out string
	switch typ {
	case "number":
		if n, ok := parseNumberText(v); ok {
			return n
		}
		return nil
	case "boolean":
		if b, ok := parseBoolText(v); ok {
			return b
		}
		if isAttribute {
			return true // present, as in <input checked> or disabled="disabled"
		}
		return nil
	case "date":
		if t, ok := meta.ParseDate(v, run.now); ok {
			out = meta.FormatDate(t)
		}
	case "url":
		out = absoluteURL(run.base, v)
	case "image", "logo", "video", "audio":
		u := absoluteURL(run.base, v)
		if u == "" {
			return nil
		}
		media := typ == "video" || typ == "audio"
		a := &Asset{URL: u, Type: meta.ImageTypeOfURL(u)}
		if media {
			a.Type = meta.MediaTypeOfURL(u)
		}
		run.assets = append(run.assets, dataAsset{a: a, media: media})
		return a
	case "email":
		out = normalizeEmail(v)
	case "ip":
		if ip, err := netip.ParseAddr(strings.Trim(v, "[]")); err == nil {
			out = ip.String()
		}
	case "regexp":
		if len(v) > maxRegexpBytes {
			return nil
		}
		if run.regexps += len(v); run.regexps > maxRegexpWork {
			run.err = apierr.Query("data."+run.rule, "", "The rules give more than %d bytes of patterns to check by `data.%s`; narrow the selectors that `type=regexp` reads.",
				maxRegexpWork, run.rule)
			return nil
		}
		if _, err := regexp.Compile(v); err == nil {
			out = v
		}
	case "object":
		if v == "" {
			return nil
		}
		dec := json.NewDecoder(strings.NewReader(v))
		dec.UseNumber()
		o, err := decodeOrdered(dec)
		if err != nil || dec.More() {
			return nil
		}
		switch o.(type) {
		case data, []any:
			return o
		}
		return nil
	case "title":
		out = meta.NormalizeTitle(v)
	case "description":
		out = meta.NormalizeDescription(v)
	case "author":
		out = meta.NormalizeAuthor(v, run.pageURL, visible)
	case "publisher":
		out = meta.NormalizePublisher(v)
	case "lang":
		out = meta.NormalizeLang(v)
	default: // auto, string
		out = v
	}
	if out == "" {
		return nil
	}
	return out
}

// rawText are the elements whose content is text the parser does not
// read as markup.
var rawText = map[string]bool{"script": true, "style": true, "textarea": true, "xmp": true, "noscript": true, "title": true}

// readers are the `attr` values that are not attribute names.
var readers = []string{"text", "html", "outerHTML", "val", "markdown", "json", "evaluate"}

// htmlText is the text of markup read with `html` or `outerHTML`, so a
// type reads what a reader sees, not tags or entities ("&#34;" is no
// number 34); other readings are text already.
func htmlText(v, attr string) string {
	if attr != "html" && attr != "outerHTML" || !strings.ContainsAny(v, "<&") {
		return v
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(v))
	if err != nil {
		return v
	}
	return strings.Join(strings.Fields(doc.Text()), " ")
}

// normalizeEmail reads an address as pages write it, bare or as a
// mailto: link, and gives it bare; "" when it is no address.
func normalizeEmail(v string) string {
	if len(v) >= 7 && strings.EqualFold(v[:7], "mailto:") {
		v = v[7:]
		if i := strings.IndexByte(v, '?'); i >= 0 {
			v = v[:i] // ?subject=…
		}
		if u, err := url.PathUnescape(v); err == nil {
			v = u
		}
	}
	v = strings.TrimSpace(v)
	a, err := mail.ParseAddress(v)
	if err != nil || a.Name != "" || strings.ContainsAny(a.Address, " <>") {
		return ""
	}
	local, domain, ok := strings.Cut(a.Address, "@")
	if !ok || local == "" || !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") {
		return ""
	}
	return local + "@" + strings.ToLower(domain)
}

// parseBoolText reads the words pages use for yes and no.
func parseBoolText(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "true", "yes", "y", "on", "1":
		return true, true
	case "false", "no", "n", "off", "0":
		return false, true
	}
	return false, false
}

// parseNumberText reads the first number written in s, the way prices and
// counts are written: "$1,299.00" is 1299, "1.299,50 €" is 1299.5, "12,5"
// is 12.5, "1 299" is 1299, "−3" is -3, "4.5 stars" is 4.5. Of ',' and '.',
// the one that comes last is the decimal mark when both appear; a lone
// ',' followed by exactly three digits groups thousands.
func parseNumberText(s string) (float64, bool) {
	rs := []rune(s)
	start := slices.IndexFunc(rs, func(r rune) bool { return r >= '0' && r <= '9' })
	if start < 0 {
		return 0, false
	}
	neg := false
	if j := start - 1; j >= 0 {
		if strings.ContainsRune("$€£¥₹₩₽¢", rs[j]) {
			j--
		}
		neg = j >= 0 && (rs[j] == '-' || rs[j] == '−')
	}
	// The run of digits and separators; a separator counts only between
	// digits.
	var seps []rune // the separator before each group after the first
	var groups []string
	var cur []rune
	i := start
	for i < len(rs) {
		r := rs[i]
		if r >= '0' && r <= '9' {
			cur = append(cur, r)
			i++
			continue
		}
		if strings.ContainsRune(".,' \u00a0\u202f’", r) && i+1 < len(rs) && rs[i+1] >= '0' && rs[i+1] <= '9' {
			groups = append(groups, string(cur))
			seps = append(seps, r)
			cur = nil
			i++
			continue
		}
		break
	}
	groups = append(groups, string(cur))
	decimal := -1 // index into seps of the decimal mark
	lastDot, lastComma, dots, commas := -1, -1, 0, 0
	for k, r := range seps {
		switch r {
		case '.':
			lastDot, dots = k, dots+1
		case ',':
			lastComma, commas = k, commas+1
		}
	}
	switch {
	case dots > 0 && commas > 0:
		decimal = max(lastDot, lastComma)
	case dots == 1:
		decimal = lastDot
	case commas == 1 && len(groups[lastComma+1]) != 3:
		decimal = lastComma
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for k, g := range groups {
		if k > 0 && k-1 == decimal {
			b.WriteByte('.')
		}
		b.WriteString(g)
		if decimal >= 0 && k > decimal {
			break
		}
	}
	n, err := strconv.ParseFloat(b.String(), 64)
	return n, err == nil
}

// absoluteURL resolves a reference against the document's base; only
// http and https results are kept, so javascript: and data: never reach
// a caller as links.
func absoluteURL(base *url.URL, ref string) string {
	ref = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(strings.TrimSpace(ref))
	if ref == "" {
		return ""
	}
	u, err := base.Parse(ref)
	if err != nil {
		if u, err = base.Parse(strings.ReplaceAll(ref, " ", "%20")); err != nil {
			return ""
		}
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

// applyFilter keeps only the paths of `filter` (e.g. "title,image.url").
// It first merges the rules' results into the fields they share a name
// with: a rule named like a metadata field replaces that field in place
// when it found a value, and leaves it alone when it did not.
func applyFilter(d data, filter []string) data {
	d = mergeFields(d)
	if filter == nil {
		return d
	}
	tree := pathTree{}
	for _, p := range filter {
		tree.add(strings.Split(p, "."))
	}
	out := make(data, 0, len(tree))
	for _, f := range d {
		sub, ok := tree[f.name]
		if !ok {
			continue
		}
		if v, keep := sub.pick(f.value); keep {
			out = append(out, field{f.name, v})
		}
	}
	return out
}

// mergeFields folds fields that share a name into the first of them.
func mergeFields(d data) data {
	seen := make(map[string]int, len(d))
	out := make(data, 0, len(d))
	for _, f := range d {
		if j, ok := seen[f.name]; ok {
			if f.value != nil {
				out[j].value = f.value
			}
			continue
		}
		seen[f.name] = len(out)
		out = append(out, f)
	}
	return out
}

// pathTree is the set of filter paths by segment; a nil subtree keeps the
// whole value.
type pathTree map[string]pathTree

func (t pathTree) add(segs []string) {
	sub, ok := t[segs[0]]
	switch {
	case len(segs) == 1:
		t[segs[0]] = nil
	case ok && sub == nil:
		// The whole value is kept already.
	default:
		if sub == nil {
			sub = pathTree{}
			t[segs[0]] = sub
		}
		sub.add(segs[1:])
	}
}

// pick keeps the parts of v the tree names. Lists are filtered item by
// item; null stays null; a scalar asked for a part it cannot have, or an
// object without any of the named keys, is dropped.
func (t pathTree) pick(v any) (any, bool) {
	if t == nil || v == nil {
		return v, true
	}
	switch x := ordered(v).(type) {
	case data:
		out := make(data, 0, len(t))
		for _, f := range x {
			if sub, ok := t[f.name]; ok {
				if pv, keep := sub.pick(f.value); keep {
					out = append(out, field{f.name, pv})
				}
			}
		}
		return out, len(out) > 0
	case []any:
		var out []any
		for _, item := range x {
			if pv, keep := t.pick(item); keep {
				out = append(out, pv)
			}
		}
		return out, len(out) > 0
	}
	return nil, false
}

// ordered turns any answer value into data (objects, keys in their JSON
// order), []any and JSON scalars, so that filters see every value alike.
func ordered(v any) any {
	switch x := v.(type) {
	case data, []any, nil:
		return x
	}
	b, err := Marshal(v)
	if err != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	out, err := decodeOrdered(dec)
	if err != nil {
		return nil
	}
	return out
}

func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		obj := data{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			obj = append(obj, field{k.(string), v})
		}
		_, err := dec.Token()
		return obj, err
	case json.Delim('['):
		list := []any{}
		for dec.More() {
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := dec.Token()
		return list, err
	}
	return tok, nil
}

// inertNodes is the set of nodes inside the document's <template>
// elements, found in one walk of the document.
func (run *dataRun) inertNodes() map[*html.Node]bool {
	if run.inert != nil {
		return run.inert
	}
	run.inert = map[*html.Node]bool{}
	var mark func(n *html.Node, inside bool)
	mark = func(n *html.Node, inside bool) {
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if inside {
				run.inert[k] = true
			}
			mark(k, inside || k.Type == html.ElementNode && k.Data == "template")
		}
	}
	for _, n := range run.doc.Nodes {
		mark(n, false)
	}
	return run.inert
}
