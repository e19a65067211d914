package query

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/andybalholm/cascadia"

	"github.com/glimpse/glimpse/orchestrator/apierr"
)

// Bounds of the `data.*` rules and of `filter`. They keep one request's
// rules from turning the extraction over a large DOM into a long job.
const (
	maxDataParams    = 256  // `data.*` parameters in one query
	maxDataFallbacks = 10   // `data.<name>.<n>` alternatives of one rule
	maxDataDepth     = 4    // levels of nested rules under `attr`
	maxDataName      = 64   // bytes of a rule name
	maxDataSelector  = 1024 // bytes of a selector
	maxDataList      = 10   // entries of a `selector`, `selectorAll` or `attr` array
	maxDataEvaluate  = 16 << 10
	maxDataEvaluates = 8 // `evaluate` rules in one query: each is a round trip into the page
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

// DataQuery is one way of reading a rule's value from the document. A
// `selector` array becomes one DataQuery per selector, in order, since
// trying each selector in turn is what a fallback is.
type DataQuery struct {
	Selector string     // CSS selector; "" means the whole page, or in a nested rule the element its parent matched
	All      bool       // `selectorAll`: every match, as a list
	Attr     string     // "html", "outerHTML", "text", "val", "markdown" or an attribute name; "" when Fields or Evaluate is set
	AltAttrs []string   // the rest of an `attr` array: tried in order on the same match when Attr yields nothing
	Type     string     // one of DataTypes; "" when Fields is set
	Fields   []DataRule // `attr.<name>.*`: an object of rules read within each match
	Evaluate string     // `evaluate`: JavaScript run in the page, whose result is the value
}

// Attrs are the ways the query reads a match, in the order they are tried.
func (q DataQuery) Attrs() []string {
	if q.Attr == "" {
		return nil
	}
	return append([]string{q.Attr}, q.AltAttrs...)
}

// DataTypes are the accepted values of `.type`, Microlink's vocabulary:
// `auto` keeps the value's own kind; the metadata names normalise it as
// the field of that name is; `image`, `logo`, `video` and `audio` give
// asset objects.
var DataTypes = []string{"auto", "string", "number", "boolean", "date", "url", "email", "ip", "regexp", "object",
	"title", "description", "author", "publisher", "lang", "image", "logo", "video", "audio"}

// dataPropNames maps every accepted spelling of a rule property to its
// camelCase name.
var dataPropNames = map[string]string{
	"selector": "selector", "selectorAll": "selectorAll", "selector_all": "selectorAll",
	"attr": "attr", "type": "type", "evaluate": "evaluate",
}

// HasEvaluate reports whether a rule reads its value by running script in
// the page, which only a browser can do.
func HasEvaluate(rules []DataRule) bool {
	return len(Evaluations(rules)) > 0
}

// Evaluations are the distinct `evaluate` sources of the rules, in order.
// `evaluate` is top-level only, so the fallbacks are all there is to see.
func Evaluations(rules []DataRule) []string {
	var out []string
	for _, r := range rules {
		for _, q := range r.Fallbacks {
			if q.Evaluate != "" && !slices.Contains(out, q.Evaluate) {
				out = append(out, q.Evaluate)
			}
		}
	}
	return out
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
		// An array entry, `data.x.selector_all.0`: the property is the
		// segment before the index.
		if _, isIndex := dataIndex(rest[i+1:]); isIndex {
			if j := strings.LastIndexByte(rest[:i], '.'); j >= 0 {
				if c, ok := dataPropNames[rest[j+1:i]]; ok {
					return "data." + rest[:j+1] + c + rest[i:], true
				}
			}
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
	lists map[string]map[int]*param // `selector.<n>`, `selectorAll.<n>`, `attr.<n>`: the array entries
	subs  []*ruleDraft
}

func (r *ruleDraft) add(segs []string, p *param) error {
	if len(segs) == 0 {
		return apierr.Query(p.given, p.value,
			"`%s` takes its rule as properties, such as `%s.selector=.price` and `%s.type=number`.", p.given, r.path, r.path)
	}
	if n, isIndex := dataIndex(segs[0]); isIndex {
		if n >= maxDataFallbacks {
			return apierr.Query(p.given, p.value, "`%s` names fallback %s; a rule may have up to %d fallbacks, numbered from 0.",
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
		return apierr.Query(p.given, p.value,
			"`%s` needs a property after it: `.selector`, `.selectorAll`, `.attr`, `.type` or `.evaluate`.", p.given)
	}
	switch segs[0] {
	case "selector", "selectorAll", "type", "attr", "evaluate":
		if len(segs) == 1 {
			q.props[segs[0]] = p
			return nil
		}
		// An array is sent as `attr.0=content&attr.1=text`: an index
		// with nothing after it. `attr.0.selector` is a nested rule
		// named 0, as an object with that key is sent.
		if n, isIndex := dataIndex(segs[1]); isIndex && len(segs) == 2 && segs[0] != "type" && segs[0] != "evaluate" {
			if n >= maxDataList {
				return apierr.Query(p.given, p.value, "`%s` names entry %s; an array may have up to %d entries, numbered from 0.",
					p.given, segs[1], maxDataList)
			}
			if q.lists == nil {
				q.lists = map[string]map[int]*param{}
			}
			if q.lists[segs[0]] == nil {
				q.lists[segs[0]] = map[int]*param{}
			}
			q.lists[segs[0]][n] = p
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
	return apierr.Query(p.given, p.value,
		"`%s` is not a data rule property: after `%s` use `.selector`, `.selectorAll`, `.attr`, `.type`, `.evaluate`, `.attr.<name>.` for nested rules or `.<n>.` for fallbacks.",
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
		return apierr.Query(p.given, p.value, "`%s` has an empty rule name; name it, as in `data.price.selector`.", p.given)
	case len(name) > maxDataName:
		return apierr.Query(p.given, p.value, "`%s` has a rule name of %d bytes; a name may have up to %d.", p.given, len(name), maxDataName)
	case strings.IndexFunc(name, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) >= 0:
		return apierr.Query(p.given, p.value, "`%s` has a rule name with spaces or control characters; use letters, digits, `-` or `_`.", p.given)
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
			return apierr.Query(p.given, p.value,
				"`%s` takes one parameter per rule property, such as `data.price.selector=.price&data.price.type=number`.", p.given)
		}
		rest, ok := strings.CutPrefix(p.name, "data.")
		if !ok {
			continue
		}
		if count++; count > maxDataParams {
			return apierr.Query(p.given, p.value, "`%s` is one `data.*` parameter too many: a query may have up to %d; ask for fewer values.",
				p.given, maxDataParams)
		}
		segs := strings.Split(rest, ".")
		name := segs[0]
		if err := checkDataName(p, name); err != nil {
			return err
		}
		if reservedDataNames[name] {
			return apierr.Query(p.given, p.value, "`%s` would hide the answer's own `%s`; give the rule another name.", p.given, name)
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
	for i, r := range req.Data {
		if n := len(Evaluations(req.Data[:i+1])); n > maxDataEvaluates {
			p := &param{name: "data." + r.Name, given: "data." + r.Name}
			for _, k := range []string{".evaluate", ".0.evaluate"} {
				if e, ok := q.get("data." + r.Name + k); ok {
					p = e
				}
			}
			return apierr.Query(p.given, p.value, "`%s` brings the query to %d different `evaluate` scripts; give at most %d, or share one script between rules.",
				p.given, n, maxDataEvaluates)
		}
	}
	return parseFilter(q, req)
}

// build checks a draft and freezes it; depth counts the `attr` levels
// above it.
func (r *ruleDraft) build(depth int) (DataRule, error) {
	out := DataRule{Name: r.name}
	if r.direct != nil && len(r.alts) > 0 {
		p := r.firstParam()
		return out, apierr.Query(p.given, p.value,
			"`%s` mixes a rule (`%s.selector`) with fallbacks (`%s.0.selector`); put every way of reading it under an index.",
			r.path, r.path, r.path)
	}
	if r.direct != nil {
		q, err := r.direct.build(depth)
		if err != nil {
			return out, err
		}
		out.Fallbacks = q
		return out, nil
	}
	for _, alt := range r.sortedAlts() {
		q, err := alt.build(depth)
		if err != nil {
			return out, err
		}
		out.Fallbacks = append(out.Fallbacks, q...)
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

// build checks one way of reading a rule and freezes it: one DataQuery, or
// one per entry of a `selector` array.
func (q *queryDraft) build(depth int) ([]DataQuery, error) {
	var out DataQuery
	sels, err := q.list("selector")
	if err != nil {
		return nil, err
	}
	alls, err := q.list("selectorAll")
	if err != nil {
		return nil, err
	}
	if len(sels) > 0 && len(alls) > 0 {
		return nil, apierr.Query(alls[0].given, alls[0].value,
			"`%s` and `%s` cannot be combined: `.selector` reads the first match, `.selectorAll` every match; keep one.", sels[0].given, alls[0].given)
	}
	if len(alls) > 0 {
		sels, out.All = alls, true
	}
	selectors := make([]string, 0, len(sels))
	for _, p := range sels {
		v := strings.TrimSpace(p.value)
		if err := checkSelector(p, v); err != nil {
			return nil, err
		}
		selectors = append(selectors, v)
	}
	attrs, err := q.list("attr")
	if err != nil {
		return nil, err
	}
	typ, hasType := q.props["type"]
	if ev, ok := q.props["evaluate"]; ok {
		switch {
		case depth > 0:
			return nil, apierr.Query(ev.given, ev.value,
				"`%s` runs over the whole page, not within a match; give it a rule of its own, such as `data.%s.evaluate`.", ev.given, q.subName())
		case len(sels) > 0 || len(attrs) > 0 || len(q.subs) > 0:
			return nil, apierr.Query(ev.given, ev.value,
				"`%s` runs script over the whole page and takes no `.selector`, `.selectorAll` or `.attr`; put those in another fallback, such as `%s.0.selector` and `%s.1.evaluate`.",
				ev.given, q.path, q.path)
		}
		v := strings.TrimSpace(ev.value)
		switch {
		case v == "":
			return nil, apierr.Query(ev.given, ev.value, "`%s` needs JavaScript: an expression such as `document.title`, or a function such as `() => window.price`.", ev.given)
		case len(v) > maxDataEvaluate:
			return nil, apierr.Query(ev.given, ev.value, "`%s` is %d bytes of script; it may have up to %d.", ev.given, len(v), maxDataEvaluate)
		}
		out.Evaluate, out.Type = v, "auto"
		if hasType {
			if out.Type, err = checkType(typ); err != nil {
				return nil, err
			}
		}
		return []DataQuery{out}, nil
	}
	if len(q.subs) > 0 {
		if len(attrs) > 0 {
			return nil, apierr.Query(attrs[0].given, attrs[0].value,
				"`%s` is either attributes to read or nested rules (`%s.<name>.selector`), not both; keep one.", attrs[0].given, q.path+".attr")
		}
		if hasType && !strings.EqualFold(strings.TrimSpace(typ.value), "object") {
			return nil, apierr.Query(typ.given, typ.value,
				"`%s` does not apply to nested rules, whose value is an object; give each nested rule its own `.type`.", typ.given)
		}
		if depth+1 > maxDataDepth {
			p := q.subs[0].firstParam()
			return nil, apierr.Query(p.given, p.value, "`%s` nests rules more than %d levels deep; flatten the rule.", p.given, maxDataDepth)
		}
		for _, s := range q.subs {
			r, err := s.build(depth + 1)
			if err != nil {
				return nil, err
			}
			out.Fields = append(out.Fields, r)
		}
	} else {
		// Microlink reads `html` unless told otherwise. A top-level rule
		// without a selector or an attribute reads the page itself: its
		// HTML, or under a metadata type the page's field of that name.
		out.Attr, out.Type = "html", "auto"
		if depth == 0 && len(selectors) == 0 && len(attrs) == 0 {
			out.Attr = ""
		}
		for i, p := range attrs {
			a, err := checkAttr(p)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				out.Attr = a
			} else if !slices.Contains(out.Attrs(), a) {
				out.AltAttrs = append(out.AltAttrs, a)
			}
		}
		if hasType {
			if out.Type, err = checkType(typ); err != nil {
				return nil, err
			}
		}
	}
	if len(selectors) == 0 {
		return []DataQuery{out}, nil
	}
	res := make([]DataQuery, 0, len(selectors))
	for _, sel := range selectors {
		c := out
		c.Selector = sel
		res = append(res, c)
	}
	return res, nil
}

// subName is the rule's own name, for a message that suggests a rule.
func (q *queryDraft) subName() string {
	path := strings.TrimPrefix(q.path, "data.")
	segs := strings.Split(path, ".")
	for i := len(segs) - 1; i >= 0; i-- {
		if _, isIndex := dataIndex(segs[i]); !isIndex {
			return segs[i]
		}
	}
	return path
}

// list is a property given once or as an array, in index order. Both at
// once is ambiguous, so it is refused.
func (q *queryDraft) list(name string) ([]*param, error) {
	one, hasOne := q.props[name]
	entries := q.lists[name]
	if hasOne && len(entries) > 0 {
		for _, p := range entries {
			return nil, apierr.Query(p.given, p.value,
				"`%s` is given both as one value (`%s`) and as an array (`%s`); keep one spelling.", q.path+"."+name, one.given, p.given)
		}
	}
	if hasOne {
		return []*param{one}, nil
	}
	idx := make([]int, 0, len(entries))
	for n := range entries {
		idx = append(idx, n)
	}
	slices.Sort(idx)
	out := make([]*param, len(idx))
	for i, n := range idx {
		out[i] = entries[n]
	}
	return out, nil
}

// checkType reads `.type`, case-insensitive.
func checkType(p *param) (string, error) {
	t := strings.ToLower(strings.TrimSpace(p.value))
	if !slices.Contains(DataTypes, t) {
		return "", apierr.Query(p.given, p.value, "`%s` must be one of `%s`, got %s.", p.given, strings.Join(DataTypes, "`, `"), apierr.Show(p.value))
	}
	return t, nil
}

// anyParam is one parameter of the query, always the same one, or nil.
func (q *queryDraft) anyParam() *param {
	for _, name := range []string{"selector", "selectorAll", "attr", "type", "evaluate"} {
		if p, ok := q.props[name]; ok {
			return p
		}
		if l, _ := q.list(name); len(l) > 0 {
			return l[0]
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
		return apierr.Query(p.given, p.value, "`%s` needs a CSS selector, such as `.price` or `h1`.", p.given)
	case len(v) > maxDataSelector:
		return apierr.Query(p.given, p.value, "`%s` is %d bytes long; a selector may have up to %d bytes.", p.given, len(v), maxDataSelector)
	}
	if _, err := cascadia.Compile(v); err != nil {
		return apierr.Query(p.given, p.value, "`%s` is not a valid CSS selector (%s); give one such as `.price`, `h1` or `a[href]`.",
			p.given, strings.TrimPrefix(err.Error(), "expected "))
	}
	return nil
}

// checkAttr reads `.attr`: `html`, `outerHTML`, `text`, `val`, `json`,
// `markdown` or an attribute name, in lower case as the HTML parser
// stores attribute names.
func checkAttr(p *param) (string, error) {
	v := strings.ToLower(strings.TrimSpace(p.value))
	if v == "" {
		return "", apierr.Query(p.given, p.value, "`%s` needs `html`, `outerHTML`, `text`, `markdown`, `val`, `json` or an attribute name such as `href`.", p.given)
	}
	if len(v) > maxDataName || strings.ContainsFunc(v, func(r rune) bool {
		return unicode.IsControl(r) || unicode.IsSpace(r) || strings.ContainsRune("\"'>/=", r)
	}) {
		return "", apierr.Query(p.given, p.value,
			"`%s` must be `html`, `outerHTML`, `text`, `markdown`, `val`, `json` or an attribute name such as `href` or `data-id`, got %s.", p.given, apierr.Show(p.value))
	}
	if v == "outerhtml" {
		return "outerHTML", nil
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
			return apierr.Query(p.given, p.value,
				"`%s` must list field paths separated by commas, such as `title,image.url`; got %s.", p.given, apierr.Show(p.value))
		}
		if !slices.Contains(paths, item) {
			paths = append(paths, item)
		}
	}
	if len(paths) > maxFilterPaths {
		return apierr.Query(p.given, p.value, "`%s` lists %d paths; give at most %d.", p.given, len(paths), maxFilterPaths)
	}
	req.Filter = paths
	return nil
}
