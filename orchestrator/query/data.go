package orchestrator

import (
	"bytes"
	"encoding/json"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"

	"github.com/glimpse/glimpse/orchestrator/meta"
)

// Bounds of the `data.*` rules and of `filter`. They keep one request's
// rules from turning the extraction over a large DOM into a long job.
const (
	maxDataParams    = 256  // `data.*` parameters in one query
	maxDataFallbacks = 10   // `data.<name>.<n>` alternatives of one rule
	maxDataDepth     = 4    // levels of nested rules under `attr`
	maxDataName      = 64   // bytes of a rule name
	maxDataSelector  = 1024 // bytes of a selector
	maxDataListItems = 1000 // values of one `selectorAll`
	maxFilterPaths   = 64
	maxFilterPath    = 256 // bytes of one filter path
)

// DataRule is one Microlink-compatible custom rule, `data.<name>.*`: the
// ways to read one value, tried in order until one yields it. Rules hold
// plain values only, since the cache key prints them with %+v.
type DataRule struct {
	Name      string
	Fallbacks []DataQuery // one, or the `data.<name>.<n>.*` alternatives in index order
}

// String is the rule's unambiguous spelling, which the cache key prints:
// selectors may hold any text, so the default %+v could make two different
// rule sets read alike and share a cached answer.
func (r DataRule) String() string {
	b, err := json.Marshal(r) // encoding/json ignores String, so this does not recurse
	if err != nil {
		return r.Name
	}
	return string(b)
}

// DataQuery is one way of reading a rule's value from the document.
type DataQuery struct {
	Selector string     // CSS selector; "" in a nested rule means the element its parent matched
	All      bool       // `selectorAll`: every match, as a list
	Attr     string     // "text", "html", "val" or an attribute name; "" when Fields is set
	Type     string     // "string", "number", "date", "url", "image" or "boolean"; "" when Fields is set
	Fields   []DataRule // `attr.<name>.*`: an object of rules read within each match
}

// dataTypes are the accepted values of `.type`.
var dataTypes = []string{"string", "number", "date", "url", "image", "boolean"}

// dataPropNames maps every accepted spelling of a rule property to its
// camelCase name.
var dataPropNames = map[string]string{
	"selector": "selector", "selectorAll": "selectorAll", "selector_all": "selectorAll",
	"attr": "attr", "type": "type",
}

// reservedDataNames are the answer's own objects, which a rule must not hide.
var reservedDataNames = map[string]bool{"pdf": true, "screenshot": true}

// dataParam recognises `data.*` and `filter`. A rule's last segment is its
// property, so only that one has a snake_case spelling to fold.
func dataParam(name string) (string, bool) {
	if name == "filter" || name == "data" {
		return name, true
	}
	rest, ok := strings.CutPrefix(name, "data.")
	if !ok {
		return "", false
	}
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		if c, ok := dataPropNames[rest[i+1:]]; ok {
			return "data." + rest[:i+1] + c, true
		}
	}
	return name, true
}

// ruleDraft and queryDraft collect the flat `data.*` parameters into the
// tree they spell, before it is checked and frozen into DataRules.
type ruleDraft struct {
	name   string
	path   string // "data.price", as messages quote it
	direct *queryDraft
	alts   map[int]*queryDraft
}

type queryDraft struct {
	path  string // "data.price" or "data.price.0"
	props map[string]*param
	subs  []*ruleDraft
}

func (r *ruleDraft) add(segs []string, p *param) error {
	if len(segs) == 0 {
		return queryError(p.given, p.value,
			"`%s` takes its rule as properties, such as `%s.selector=.price` and `%s.type=number`.", p.given, r.path, r.path)
	}
	if n, isIndex := dataIndex(segs[0]); isIndex {
		if n >= maxDataFallbacks {
			return queryError(p.given, p.value, "`%s` names fallback %s; a rule may have up to %d fallbacks, numbered from 0.",
				p.given, segs[0], maxDataFallbacks)
		}
		if r.alts == nil {
			r.alts = map[int]*queryDraft{}
		}
		q, ok := r.alts[n]
		if !ok {
			q = &queryDraft{path: r.path + "." + strconv.Itoa(n), props: map[string]*param{}}
			r.alts[n] = q
		}
		return q.add(segs[1:], p)
	}
	if r.direct == nil {
		r.direct = &queryDraft{path: r.path, props: map[string]*param{}}
	}
	return r.direct.add(segs, p)
}

func (q *queryDraft) add(segs []string, p *param) error {
	if len(segs) == 0 {
		return queryError(p.given, p.value,
			"`%s` needs a property after it: `.selector`, `.selectorAll`, `.attr` or `.type`.", p.given)
	}
	switch segs[0] {
	case "selector", "selectorAll", "type", "attr":
		if len(segs) == 1 {
			q.props[segs[0]] = p
			return nil
		}
		if segs[0] == "attr" {
			name := segs[1]
			if err := checkDataName(p, name); err != nil {
				return err
			}
			for _, s := range q.subs {
				if s.name == name {
					return s.add(segs[2:], p)
				}
			}
			s := &ruleDraft{name: name, path: q.path + ".attr." + name}
			q.subs = append(q.subs, s)
			return s.add(segs[2:], p)
		}
	}
	return queryError(p.given, p.value,
		"`%s` is not a data rule property: after `%s` use `.selector`, `.selectorAll`, `.attr`, `.type`, `.attr.<name>.` for nested rules or `.<n>.` for fallbacks.",
		p.given, q.path)
}

// dataIndex reads a fallback index: one or two digits.
func dataIndex(s string) (int, bool) {
	if s == "" || len(s) > 2 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if !isASCIIDigit(s[i]) {
			return 0, false
		}
	}
	n, _ := strconv.Atoi(s)
	return n, true
}

func checkDataName(p *param, name string) error {
	switch {
	case name == "":
		return queryError(p.given, p.value, "`%s` has an empty rule name; name it, as in `data.price.selector`.", p.given)
	case len(name) > maxDataName:
		return queryError(p.given, p.value, "`%s` has a rule name of %d bytes; a name may have up to %d.", p.given, len(name), maxDataName)
	case strings.IndexFunc(name, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) >= 0:
		return queryError(p.given, p.value, "`%s` has a rule name with spaces or control characters; use letters, digits, `-` or `_`.", p.given)
	}
	return nil
}

// parseData reads the `data.*` rules and `filter` into req.Data and
// req.Filter. Rules keep the order in which the query first names them.
func parseData(q *query, req *Request) error {
	var drafts []*ruleDraft
	count := 0
	for _, p := range q.order {
		if p.name == "data" {
			return queryError(p.given, p.value,
				"`%s` takes one parameter per rule property, such as `data.price.selector=.price&data.price.type=number`.", p.given)
		}
		rest, ok := strings.CutPrefix(p.name, "data.")
		if !ok {
			continue
		}
		if count++; count > maxDataParams {
			return queryError(p.given, p.value, "`%s` is one `data.*` parameter too many: a query may have up to %d; ask for fewer values.",
				p.given, maxDataParams)
		}
		segs := strings.Split(rest, ".")
		name := segs[0]
		if err := checkDataName(p, name); err != nil {
			return err
		}
		if reservedDataNames[name] {
			return queryError(p.given, p.value, "`%s` would hide the answer's own `%s`; give the rule another name.", p.given, name)
		}
		i := slices.IndexFunc(drafts, func(d *ruleDraft) bool { return d.name == name })
		if i < 0 {
			drafts = append(drafts, &ruleDraft{name: name, path: "data." + name})
			i = len(drafts) - 1
		}
		if err := drafts[i].add(segs[1:], p); err != nil {
			return err
		}
	}
	for _, d := range drafts {
		r, err := d.build(0)
		if err != nil {
			return err
		}
		req.Data = append(req.Data, r)
	}
	return parseFilter(q, req)
}

// build checks a draft and freezes it; depth counts the `attr` levels
// above it.
func (r *ruleDraft) build(depth int) (DataRule, error) {
	out := DataRule{Name: r.name}
	if r.direct != nil && len(r.alts) > 0 {
		p := r.firstParam()
		return out, queryError(p.given, p.value,
			"`%s` mixes a rule (`%s.selector`) with fallbacks (`%s.0.selector`); put every way of reading it under an index.",
			r.path, r.path, r.path)
	}
	if r.direct != nil {
		q, err := r.direct.build(depth)
		if err != nil {
			return out, err
		}
		out.Fallbacks = []DataQuery{q}
		return out, nil
	}
	for _, alt := range r.sortedAlts() {
		q, err := alt.build(depth)
		if err != nil {
			return out, err
		}
		out.Fallbacks = append(out.Fallbacks, q)
	}
	return out, nil
}

// sortedAlts are the fallbacks in index order, whatever order the query
// gave them in.
func (r *ruleDraft) sortedAlts() []*queryDraft {
	idx := make([]int, 0, len(r.alts))
	for n := range r.alts {
		idx = append(idx, n)
	}
	slices.Sort(idx)
	out := make([]*queryDraft, len(idx))
	for i, n := range idx {
		out[i] = r.alts[n]
	}
	return out
}

// firstParam is one parameter of the rule, always the same one, for an
// error that concerns the rule as a whole.
func (r *ruleDraft) firstParam() *param {
	qs := r.sortedAlts()
	if r.direct != nil {
		qs = append([]*queryDraft{r.direct}, qs...)
	}
	for _, q := range qs {
		if p := q.anyParam(); p != nil {
			return p
		}
	}
	return &param{name: r.path, given: r.path}
}

func (q *queryDraft) build(depth int) (DataQuery, error) {
	var out DataQuery
	sel, hasSel := q.props["selector"]
	all, hasAll := q.props["selectorAll"]
	switch {
	case hasSel && hasAll:
		return out, queryError(all.given, all.value,
			"`%s` and `%s` cannot be combined: `.selector` reads the first match, `.selectorAll` every match; keep one.", sel.given, all.given)
	case hasSel || hasAll:
		p := sel
		if hasAll {
			p, out.All = all, true
		}
		v := strings.TrimSpace(p.value)
		if err := checkSelector(p, v); err != nil {
			return out, err
		}
		out.Selector = v
	case depth == 0:
		p := q.anyParam() // never nil: the draft exists because a parameter named it
		return out, queryError(p.given, p.value,
			"`%s` needs a place to read from: add `%s.selector` (the first match) or `%s.selectorAll` (every match).", p.given, q.path, q.path)
	}
	attr, hasAttr := q.props["attr"]
	typ, hasType := q.props["type"]
	if len(q.subs) > 0 {
		if hasAttr {
			return out, queryError(attr.given, attr.value,
				"`%s` is either one attribute or nested rules (`%s.<name>.selector`), not both; keep one.", attr.given, attr.given)
		}
		if hasType {
			return out, queryError(typ.given, typ.value,
				"`%s` does not apply to nested rules, whose value is an object; give each nested rule its own `.type`.", typ.given)
		}
		if depth+1 > maxDataDepth {
			p := q.subs[0].firstParam()
			return out, queryError(p.given, p.value, "`%s` nests rules more than %d levels deep; flatten the rule.", p.given, maxDataDepth)
		}
		for _, s := range q.subs {
			r, err := s.build(depth + 1)
			if err != nil {
				return out, err
			}
			out.Fields = append(out.Fields, r)
		}
		return out, nil
	}
	out.Attr, out.Type = "text", "string"
	if hasAttr {
		a, err := checkAttr(attr)
		if err != nil {
			return out, err
		}
		out.Attr = a
	}
	if hasType {
		t := strings.ToLower(strings.TrimSpace(typ.value))
		if !slices.Contains(dataTypes, t) {
			return out, queryError(typ.given, typ.value, "`%s` must be one of `%s`, got %s.", typ.given, strings.Join(dataTypes, "`, `"), show(typ.value))
		}
		out.Type = t
	}
	return out, nil
}

// anyParam is one parameter of the query, always the same one, or nil.
func (q *queryDraft) anyParam() *param {
	for _, name := range []string{"selector", "selectorAll", "attr", "type"} {
		if p, ok := q.props[name]; ok {
			return p
		}
	}
	if len(q.subs) > 0 {
		return q.subs[0].firstParam()
	}
	return nil
}

// checkSelector compiles the selector with the engine that runs it, so a
// typo is reported here instead of quietly matching nothing.
func checkSelector(p *param, v string) error {
	switch {
	case v == "":
		return queryError(p.given, p.value, "`%s` needs a CSS selector, such as `.price` or `h1`.", p.given)
	case len(v) > maxDataSelector:
		return queryError(p.given, p.value, "`%s` is %d bytes long; a selector may have up to %d bytes.", p.given, len(v), maxDataSelector)
	}
	if _, err := cascadia.Compile(v); err != nil {
		return queryError(p.given, p.value, "`%s` is not a valid CSS selector (%s); give one such as `.price`, `h1` or `a[href]`.",
			p.given, strings.TrimPrefix(err.Error(), "expected "))
	}
	return nil
}

// checkAttr reads `.attr`: `text`, `html`, `val` or an attribute name, in
// lower case as the HTML parser stores attribute names.
func checkAttr(p *param) (string, error) {
	v := strings.ToLower(strings.TrimSpace(p.value))
	if v == "" {
		return "", queryError(p.given, p.value, "`%s` needs `text`, `html`, `val` or an attribute name such as `href`.", p.given)
	}
	if len(v) > maxDataName || strings.ContainsFunc(v, func(r rune) bool {
		return unicode.IsControl(r) || unicode.IsSpace(r) || strings.ContainsRune("\"'>/=", r)
	}) {
		return "", queryError(p.given, p.value,
			"`%s` must be `text`, `html`, `val` or an attribute name such as `href` or `data-id`, got %s.", p.given, show(p.value))
	}
	return v, nil
}

// parseFilter reads `filter`, a comma-separated list of field paths.
func parseFilter(q *query, req *Request) error {
	p, ok := q.get("filter")
	if !ok {
		return nil
	}
	var paths []string
	for item := range strings.SplitSeq(p.value, ",") {
		item = strings.TrimSpace(item)
		bad := item == "" || len(item) > maxFilterPath
		for seg := range strings.SplitSeq(item, ".") {
			bad = bad || strings.TrimSpace(seg) == "" || seg != strings.TrimSpace(seg)
		}
		if bad {
			return queryError(p.given, p.value,
				"`%s` must list field paths separated by commas, such as `title,image.url`; got %s.", p.given, show(p.value))
		}
		if !slices.Contains(paths, item) {
			paths = append(paths, item)
		}
	}
	if len(paths) > maxFilterPaths {
		return queryError(p.given, p.value, "`%s` lists %d paths; give at most %d.", p.given, len(paths), maxFilterPaths)
	}
	req.Filter = paths
	return nil
}

// dataRun is one evaluation of the rules over a document.
type dataRun struct {
	base     *url.URL
	now      time.Time
	matchers map[string]goquery.Matcher
}

// applyDataRules runs the rules over the document; the results are merged
// into the answer's data in rule order. A rule whose every fallback finds
// nothing is null.
func applyDataRules(doc *goquery.Document, base *url.URL, rules []DataRule) []field {
	run := &dataRun{base: dataBase(doc, base), now: time.Now(), matchers: map[string]goquery.Matcher{}}
	out := make([]field, 0, len(rules))
	for _, r := range rules {
		out = append(out, field{r.Name, run.rule(doc.Selection, r)})
	}
	return out
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

func (run *dataRun) rule(scope *goquery.Selection, r DataRule) any {
	for _, q := range r.Fallbacks {
		if v := run.query(scope, q); v != nil {
			return v
		}
	}
	return nil
}

func (run *dataRun) query(scope *goquery.Selection, q DataQuery) any {
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
		matches = scope.FindMatcher(m)
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
		return len(list) < maxDataListItems
	})
	if len(list) == 0 {
		return nil
	}
	return list
}

// value reads one match: an object of nested rules, or one typed value.
func (run *dataRun) value(s *goquery.Selection, q DataQuery) any {
	if len(q.Fields) > 0 {
		obj := make(data, 0, len(q.Fields))
		found := false
		for _, f := range q.Fields {
			v := run.rule(s, f)
			found = found || v != nil
			obj = append(obj, field{f.Name, v})
		}
		if !found {
			return nil
		}
		return obj
	}
	raw, present := readAttr(s, q.Attr)
	return run.typed(raw, present, q)
}

// readAttr reads text, inner HTML, a form value or an attribute.
func readAttr(s *goquery.Selection, attr string) (string, bool) {
	switch attr {
	case "text":
		return strings.Join(strings.Fields(s.Text()), " "), true
	case "html":
		h, err := s.Html()
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

// typed converts what was read into the rule's type; nil means the rule
// found no usable value, so the next fallback is tried.
func (run *dataRun) typed(raw string, present bool, q DataQuery) any {
	isAttribute := q.Attr != "text" && q.Attr != "html" && q.Attr != "val"
	if !present {
		if q.Type == "boolean" && isAttribute {
			return false // a boolean attribute that is absent is false
		}
		return nil
	}
	v := strings.TrimSpace(raw)
	switch q.Type {
	case "number":
		if n, ok := parseNumberText(v); ok {
			return n
		}
	case "date":
		if t, ok := meta.ParseDate(v, run.now); ok {
			return meta.FormatDate(t)
		}
	case "url":
		if u := absoluteURL(run.base, v); u != "" {
			return u
		}
	case "image":
		if u := absoluteURL(run.base, v); u != "" {
			return &Asset{URL: u, Type: imageTypeOfURL(u)}
		}
	case "boolean":
		if b, ok := parseBoolText(v); ok {
			return b
		}
		if isAttribute {
			return true // present, as in <input checked> or disabled="disabled"
		}
	default:
		if v != "" {
			return v
		}
	}
	return nil
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

// imageTypeOfURL is the image type a URL's extension names, or "".
func imageTypeOfURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	switch strings.ToLower(strings.TrimPrefix(path.Ext(u.Path), ".")) {
	case "jpg", "jpeg", "jpe", "jfif":
		return "jpg"
	case "png", "apng":
		return "png"
	case "gif":
		return "gif"
	case "webp":
		return "webp"
	case "svg", "svgz":
		return "svg"
	case "ico":
		return "ico"
	case "avif":
		return "avif"
	case "bmp":
		return "bmp"
	}
	return ""
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
	b, err := marshalNoEscape(v)
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
