package meta

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/glimpse/glimpse/internal/testtool"
	"github.com/glimpse/glimpse/orchestrator/internal/evalhalf"
)

// The metadata sample (shared/eval/metadata) holds real pages with the values
// their sources assert. These tests score Extract on it the way the sample's
// scorer (score.py) scores the running service: each page as if served from
// a loopback origin at /<name>/, exact comparisons after NFC and trimming,
// descriptions by prefix, dates to the second, and URL fields by path and
// query when the expected host is the page's original host.
//
// Three sets are scored: "cases", pages from metascraper's fixtures with that
// library's values; "cases-readability", pages from Mozilla Readability's
// test suite where only what the page itself states is asserted; and "wcxb",
// the WCXB development pages of seven kinds with their title, author and
// publication day (its page.html.gz files may be links to the set's pages). The second
// is scored with score.py's --fold: straight and typographic quotes compare
// alike, since those pages write either and Microlink answers typographic
// ones. TestSampleAccuracyOfBothSets prints the two sets together, which is
// the figure the accuracy targets are stated on.
//
// For image and logo the first candidate counts, as with ping=false. The one
// exception is the <origin>/favicon.ico last resort: on the scorer's page
// server that address is a 404, so a probing caller drops it and answers
// null, which is what this test counts too.

const (
	// samplePort stands for the scorer's random loopback port.
	samplePort = 38917
	// sampleNow is the clock for the sample: after its newest page.
	sampleNow = "2026-01-15T00:00:00Z"
)

var sampleFields = []string{"title", "description", "lang", "author", "publisher", "image", "date", "datePublished", "url", "logo"}

type sampleCase struct {
	name     string
	URL      string                    `json:"url"`
	Expected map[string]*string        `json:"expected"`
	Loose    map[string]map[string]any `json:"expected_loose"`
	pageURL  string
	fold     bool // compare text as score.py --fold does
}

// sampleSet is one folder of cases and how score.py is run on it.
type sampleSet struct {
	// folder is the set's path under the shared eval folder.
	name, env, folder string
	fold              bool
	// halves lets GLIMPSE_EVAL_HALF keep one half of the set's cases.
	halves bool
	// now is the clock the set is read at: after its newest page.
	now string
	// floor is the accuracy each field must keep; overall the accuracy of
	// all fields together.
	floor   map[string]float64
	overall float64
	// every, above 1, scores only every every-th case in name order: a
	// fixed sample of a set too large to score on every run.
	every int
}

var (
	metascraperSet = sampleSet{name: "cases", env: "GLIMPSE_EVAL_DIR", folder: "metadata/cases",
		floor: sampleFloor, overall: 0.92}
	readabilitySet = sampleSet{name: "cases-readability", env: "GLIMPSE_EVAL_READABILITY_DIR", folder: "metadata/cases-readability",
		fold: true, floor: readabilityFloor, overall: 0.92}
	wcxbSet = sampleSet{name: "wcxb", env: "GLIMPSE_EVAL_WCXB_DIR", folder: "wcxb/meta", halves: true,
		now: "2026-04-01T00:00:00Z", floor: wcxbFloor}
)

// sampleFloor is the accuracy each field must keep on the 48 pages. Logo's
// is lower because 12 of the sample's 48 expected logos depend on what the
// network answered when they were recorded (an icon that was unreachable, a
// redirect's final address) and no rule over the page can give them; see the
// package report. Author's is lower because the sample keeps metascraper's
// answers where the rules now know better: Twitter handles (BT_India,
// BeckerFriedman, segment) are never authors, and a named byline beats a
// staff attribution.
var sampleFloor = map[string]float64{
	"title": 0.85, "description": 0.85, "lang": 0.85, "author": 0.80, "publisher": 0.85,
	"image": 0.85, "date": 0.85, "url": 0.85, "logo": 0.70,
}

// readabilityFloor is the accuracy each field must keep on the Readability
// pages, which assert no image, logo or url, and assert the publication
// date as datePublished.
var readabilityFloor = map[string]float64{
	"title": 0.95, "description": 0.95, "lang": 0.95, "author": 0.90, "publisher": 0.95, "datePublished": 0.95,
}

// dir is the folder of a set: its environment variable, else the
// set's folder in the eval folder that holds the default sample.
func (s sampleSet) dir(t testing.TB) string {
	dir := os.Getenv(s.env)
	if dir == "" {
		eval := filepath.Join("..", "..", "..", "shared", "eval")
		if base := os.Getenv(metascraperSet.env); base != "" {
			eval = filepath.Dir(filepath.Dir(filepath.Clean(base))) // <eval>/metadata/cases
		}
		dir = filepath.Join(eval, filepath.FromSlash(s.folder))
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the metadata set %s is not at %s (set %s to its folder to score against it)", s.name, dir, s.env)
	}
	return dir
}

// tally counts the checks of one field that passed, out of all.
type tally struct{ ok, all int }

func (tl tally) rate() float64 { return float64(tl.ok) / float64(max(tl.all, 1)) }

// setScore is what scoring one set gives: a tally per field and the checks
// that failed.
type setScore struct {
	cases      int
	perField   map[string]*tally
	mismatches []string
}

func (s setScore) total() tally {
	var all tally
	for _, f := range sampleFields {
		all.ok += s.perField[f].ok
		all.all += s.perField[f].all
	}
	return all
}

// scores keeps each set's score for the tests that read it again.
var scores sync.Map // set name → setScore

// score is scoreCases, once per set and test binary.
func (s sampleSet) score(t *testing.T) setScore {
	if v, ok := scores.Load(s.name); ok {
		return v.(setScore)
	}
	res := s.scoreCases(t)
	scores.Store(s.name, res)
	return res
}

// scoreCases runs Extract over every case of the set, as score.py does:
// every exact check and every loose check of a case counts.
func (s sampleSet) scoreCases(t *testing.T) setScore {
	dir := s.dir(t)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("cannot list the metadata set at %s: %v", dir, err)
	}
	clock := sampleNow
	if s.now != "" {
		clock = s.now
	}
	now, _ := time.Parse(time.RFC3339, clock)
	res := setScore{perField: map[string]*tally{}}
	for _, f := range sampleFields {
		res.perField[f] = &tally{}
	}
	seen := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		seen++
		if s.every > 1 && (seen-1)%s.every != 0 || s.halves && !evalhalf.Keep(e.Name()) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name(), "case.json"))
		if err != nil {
			continue
		}
		c := sampleCase{name: e.Name(), fold: s.fold}
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("case %s: case.json does not parse: %v", e.Name(), err)
		}
		c.pageURL = fmt.Sprintf("http://127.0.0.1:%d/%s/", samplePort, e.Name())
		page, err := readCasePage(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatalf("case %s: %v", e.Name(), err)
		}
		doc, err := ParseDocument(bytes.NewReader(page))
		if err != nil {
			t.Fatalf("case %s: page.html does not parse: %v", e.Name(), err)
		}
		pu, _ := url.Parse(c.pageURL)
		got := answers(extract(doc, pu, now))
		res.cases++
		for _, field := range sampleFields {
			type check struct {
				ok   bool
				want string
			}
			var checks []check
			if exp, asserted := c.Expected[field]; asserted {
				checks = append(checks, check{exactOK(field, exp, got[field], c), showPtr(exp)})
			}
			if spec, asserted := c.Loose[field]; asserted {
				checks = append(checks, check{looseOK(field, spec, got[field], c), fmt.Sprint(spec)})
			}
			for _, ch := range checks {
				res.perField[field].all++
				if ch.ok {
					res.perField[field].ok++
				} else {
					res.mismatches = append(res.mismatches, fmt.Sprintf("%s | %s | want %s | got %s", c.name, field, clip(ch.want), clip(showPtr(got[field]))))
				}
			}
		}
	}
	if res.cases == 0 {
		t.Skipf("the metadata set at %s has no cases", dir)
	}
	sort.Strings(res.mismatches)
	return res
}

// logScore prints a set's mismatches and per-field accuracy.
func logScore(t *testing.T, name string, s setScore, mismatches bool) {
	t.Helper()
	if mismatches {
		for _, m := range s.mismatches {
			t.Log(m)
		}
	}
	for _, f := range sampleFields {
		if tl := s.perField[f]; tl.all > 0 {
			t.Logf("%s %-12s %.3f (%d/%d)", name, f, tl.rate(), tl.ok, tl.all)
		}
	}
	all := s.total()
	t.Logf("%s %-12s %.3f (%d/%d) over %d cases", name, "overall", all.rate(), all.ok, all.all, s.cases)
}

// checkFloors fails the test for the set's overall and per-field floors.
func checkFloors(t *testing.T, set sampleSet, s setScore) {
	t.Helper()
	if all := s.total(); all.rate() < set.overall {
		t.Errorf("overall accuracy on %s is %.3f, want at least %.2f", set.name, all.rate(), set.overall)
	}
	for _, f := range sampleFields {
		if tl := s.perField[f]; tl.all > 0 && tl.rate() < set.floor[f] {
			t.Errorf("%s accuracy on %s is %.3f, want at least %.2f", f, set.name, tl.rate(), set.floor[f])
		}
	}
}

// wcxbFloor is the accuracy each field must keep on the WCXB development
// pages, which assert title, author and the publication day (as both
// datePublished and, Microlink's meaning, date).
var wcxbFloor = map[string]float64{
	"title": 0.84, "author": 0.82, "date": 0.92, "datePublished": 0.87,
}

// wcxbSampleFloor is the accuracy each field must keep on the fixed tenth
// of the WCXB pages that every run scores.
var wcxbSampleFloor = map[string]float64{
	"title": 0.83, "author": 0.83, "date": 0.90, "datePublished": 0.85,
}

// TestWCXBAccuracy scores the WCXB development pages, 1,497 pages of seven
// kinds (articles, forums, products, services, listings, collections,
// documentation): a fixed tenth of them on every run, all of them with
// GLIMPSE_EVAL_WCXB=1 (under -race the whole set takes minutes).
// GLIMPSE_EVAL_WCXB_MISMATCHES=1 prints every mismatch.
func TestWCXBAccuracy(t *testing.T) {
	testtool.WithoutRace(t)
	if testing.Short() {
		t.Skip("scoring the WCXB pages is not short")
	}
	set := wcxbSet
	if os.Getenv("GLIMPSE_EVAL_WCXB") == "" {
		set.name, set.every, set.floor = "wcxb-tenth", 10, wcxbSampleFloor
	}
	s := set.score(t)
	logScore(t, set.name, s, os.Getenv("GLIMPSE_EVAL_WCXB_MISMATCHES") != "")
	checkFloors(t, set, s)
}

func TestSampleAccuracy(t *testing.T) {
	testtool.WithoutRace(t)
	s := metascraperSet.score(t)
	logScore(t, metascraperSet.name, s, true)
	checkFloors(t, metascraperSet, s)
}

func TestReadabilityAccuracy(t *testing.T) {
	testtool.WithoutRace(t)
	s := readabilitySet.score(t)
	logScore(t, readabilitySet.name, s, true)
	checkFloors(t, readabilitySet, s)
}

// TestSampleAccuracyOfBothSets prints the two sets added together, field by
// field.
func TestSampleAccuracyOfBothSets(t *testing.T) {
	testtool.WithoutRace(t)
	a, b := metascraperSet.score(t), readabilitySet.score(t)
	both := setScore{cases: a.cases + b.cases, perField: map[string]*tally{}}
	for _, f := range sampleFields {
		both.perField[f] = &tally{ok: a.perField[f].ok + b.perField[f].ok, all: a.perField[f].all + b.perField[f].all}
	}
	logScore(t, "both", both, false)
}

// readCasePage reads a case's page.html, or its page.html.gz gunzipped. A
// page.html.gz checked out as a text file holding a relative path stands for
// the file it names (a symbolic link on a file system without them).
func readCasePage(dir string) ([]byte, error) {
	if b, err := os.ReadFile(filepath.Join(dir, "page.html")); err == nil {
		return b, nil
	}
	name := filepath.Join(dir, "page.html.gz")
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	if len(b) < 512 && bytes.HasPrefix(b, []byte("..")) {
		if b, err = os.ReadFile(filepath.Join(dir, filepath.FromSlash(strings.TrimSpace(string(b))))); err != nil {
			return nil, err
		}
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("page.html.gz: %w", err)
	}
	return io.ReadAll(zr)
}

func answers(r Result) map[string]*string {
	first := func(cs []Candidate) *string {
		if len(cs) == 0 || cs[0].Source == sourceFavicon {
			return nil
		}
		return &cs[0].URL
	}
	out := map[string]*string{
		"title": r.Title, "description": r.Description, "lang": r.Lang, "author": r.Author,
		"publisher": r.Publisher, "date": r.Date, "datePublished": r.DatePublished, "url": r.URL, "image": first(r.Image), "logo": first(r.Logo),
	}
	for k, v := range out {
		if v != nil {
			s := nstr(*v)
			if s == "" {
				out[k] = nil
			} else {
				out[k] = &s
			}
		}
	}
	return out
}

func showPtr(s *string) string {
	if s == nil {
		return "null"
	}
	return strconv.Quote(*s)
}

func clip(s string) string {
	if r := []rune(s); len(r) > 140 {
		return string(r[:137]) + "..."
	}
	return s
}

// nstr is score.py's nstr: NFC, then Python's strip().
func nstr(s string) string {
	return norm.NFC.String(strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }))
}

// quoteFold is score.py's table for --fold: typographic quotes and primes
// read as their typewriter forms.
var quoteFold = strings.NewReplacer("\u2018", "'", "\u2019", "'", "\u201a", "'", "\u201b", "'", "\u2032", "'",
	"\u201c", `"`, "\u201d", `"`, "\u201e", `"`, "\u201f", `"`, "\u2033", `"`)

// cstr is score.py's cstr, the comparable form of a text value: nstr, and
// with fold also quotes folded and whitespace runs collapsed.
func cstr(s string, fold bool) string {
	s = nstr(s)
	if fold {
		s = strings.Join(strings.FieldsFunc(quoteFold.Replace(s), unicode.IsSpace), " ")
	}
	return s
}

func exactOK(field string, exp, got *string, c sampleCase) bool {
	if exp == nil {
		return got == nil
	}
	if got == nil {
		return false
	}
	switch field {
	case "url", "image", "logo":
		return urlEq(field, *exp, *got, c)
	case "date", "datePublished":
		return dateEq(*exp, *got)
	case "description":
		return descEq(*exp, *got, c.fold)
	case "lang":
		return strings.ToLower(nstr(*exp)) == strings.ToLower(*got)
	}
	return cstr(*exp, c.fold) == cstr(*got, c.fold)
}

func looseOK(field string, spec map[string]any, got *string, c sampleCase) bool {
	if _, ok := spec["nonnull"]; ok {
		return got != nil
	}
	if got == nil {
		return false
	}
	isURL := field == "url" || field == "image" || field == "logo"
	if v, ok := spec["any_of"].([]any); ok {
		for _, x := range v {
			if s, ok := x.(string); ok && exactOK(field, &s, got, c) {
				return true
			}
		}
		return false
	}
	if v, ok := spec["contains"].(string); ok {
		if isURL {
			return strings.Contains(*got, v)
		}
		return strings.Contains(cstr(*got, c.fold), cstr(v, c.fold))
	}
	if v, ok := spec["startswith"].(string); ok {
		if isURL {
			return urlPrefix(v, *got, c)
		}
		return strings.HasPrefix(cstr(*got, c.fold), cstr(v, c.fold))
	}
	if v, ok := spec["iequals"].(string); ok {
		return strings.EqualFold(cstr(v, c.fold), cstr(*got, c.fold))
	}
	if v, ok := spec["regex"].(string); ok {
		re, err := pyRegexp(v)
		return err == nil && re.MatchString(*got)
	}
	return false
}

// pyRegexps keeps the case sets' regular expressions compiled.
var pyRegexps sync.Map // Python source → *regexp.Regexp

// pyRegexp compiles one of score.py's regular expressions: Python's \uXXXX
// is RE2's \x{XXXX}.
func pyRegexp(src string) (*regexp.Regexp, error) {
	if re, ok := pyRegexps.Load(src); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(pyUnicodeEscape.ReplaceAllString(src, `\x{$1}`))
	if err != nil {
		return nil, err
	}
	pyRegexps.Store(src, re)
	return re, nil
}

var pyUnicodeEscape = regexp.MustCompile(`\\u([0-9a-fA-F]{4})`)

// split is Python's urllib.parse.urlsplit, enough for http(s) URLs.
type split struct{ scheme, netloc, path, query, fragment, host, port string }

func urlsplit(s string) split {
	var u split
	if i := strings.Index(s, ":"); i > 0 && regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`).MatchString(s[:i]) {
		u.scheme, s = strings.ToLower(s[:i]), s[i+1:]
	}
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		end := strings.IndexAny(s, "/?#")
		if end < 0 {
			end = len(s)
		}
		u.netloc, s = s[:end], s[end:]
	}
	if i := strings.Index(s, "#"); i >= 0 {
		s, u.fragment = s[:i], s[i+1:]
	}
	if i := strings.Index(s, "?"); i >= 0 {
		s, u.query = s[:i], s[i+1:]
	}
	u.path = s
	hp := u.netloc
	if i := strings.LastIndex(hp, "@"); i >= 0 {
		hp = hp[i+1:]
	}
	if i := strings.LastIndex(hp, ":"); i >= 0 && !strings.Contains(hp[i:], "]") {
		u.host, u.port = hp[:i], hp[i+1:]
	} else {
		u.host = hp
	}
	u.host = strings.ToLower(strings.Trim(u.host, "[]"))
	return u
}

func (u split) pq() string {
	if u.query != "" {
		return u.path + "?" + u.query
	}
	return u.path
}

func (u split) hostPort() string { return u.host + ":" + u.port }

func (u split) full() string {
	netloc := u.host
	if u.port != "" && !(u.scheme == "http" && u.port == "80") && !(u.scheme == "https" && u.port == "443") {
		netloc += ":" + u.port
	}
	s := u.scheme + "://" + netloc + u.path
	if u.query != "" {
		s += "?" + u.query
	}
	if u.fragment != "" {
		s += "#" + u.fragment
	}
	return s
}

func urljoin(base, ref string) string {
	if urlsplit(ref).scheme != "" {
		return ref
	}
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	r, err := b.Parse(ref)
	if err != nil {
		return ref
	}
	return r.String()
}

func urlEq(field, exp, got string, c sampleCase) bool {
	orig, served := urlsplit(c.URL), urlsplit(c.pageURL)
	e, g := urlsplit(nstr(exp)), urlsplit(urljoin(c.pageURL, got))
	sameHostAsOrig := e.host == orig.host
	if field == "url" && sameHostAsOrig && e.pq() == orig.pq() {
		if g.hostPort() == served.hostPort() && g.pq() == served.pq() {
			return true
		}
	}
	if !sameHostAsOrig {
		return e.full() == g.full()
	}
	if g.host != orig.host && g.hostPort() != served.hostPort() {
		return false
	}
	if e.pq() == g.pq() {
		return true
	}
	if g.hostPort() == served.hostPort() {
		odir := orig.path[:strings.LastIndex(orig.path, "/")+1]
		sdir := served.path[:strings.LastIndex(served.path, "/")+1]
		if odir != sdir && strings.HasPrefix(e.path, odir) && g.path == sdir+e.path[len(odir):] && e.query == g.query {
			return true
		}
	}
	return false
}

func urlPrefix(prefix, got string, c sampleCase) bool {
	orig, served := urlsplit(c.URL), urlsplit(c.pageURL)
	e, g := urlsplit(prefix), urlsplit(urljoin(c.pageURL, got))
	if e.host == orig.host && (g.hostPort() == orig.hostPort() || g.hostPort() == served.hostPort()) {
		return strings.HasPrefix(g.pq(), e.pq())
	}
	return strings.HasPrefix(got, prefix)
}

func parseSampleDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if regexp.MustCompile(`^-?\d{10,13}$`).MatchString(s) {
		n, _ := strconv.ParseInt(s, 10, 64)
		if len(strings.TrimPrefix(s, "-")) > 11 {
			return time.UnixMilli(n).UTC(), true
		}
		return time.Unix(n, 0).UTC(), true
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, strings.Replace(s, "z", "Z", 1)); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

func dateEq(exp, got string) bool {
	a, ok1 := parseSampleDate(exp)
	b, ok2 := parseSampleDate(got)
	return ok1 && ok2 && a.Truncate(time.Second).Equal(b.Truncate(time.Second))
}

func stripEllipsis(s string) string {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	for _, e := range []string{"…", "..."} {
		if strings.HasSuffix(s, e) {
			return strings.TrimRightFunc(strings.TrimSuffix(s, e), unicode.IsSpace)
		}
	}
	return s
}

func descEq(exp, got string, fold bool) bool {
	a, b := stripEllipsis(cstr(exp, fold)), stripEllipsis(cstr(got, fold))
	if a == b {
		return true
	}
	short, long := a, b
	if len([]rune(a)) > len([]rune(b)) {
		short, long = b, a
	}
	return short != "" && strings.HasPrefix(long, short) && len([]rune(short)) >= min(len([]rune(long)), 40)
}

// BenchmarkExtractOnTheSample times ParseDocument and Extract over the 48
// sample pages, one after another: what the metadata rules cost a page
// answered by a plain fetch.
func BenchmarkExtractOnTheSample(b *testing.B) {
	pages, err := filepath.Glob(filepath.Join(metascraperSet.dir(b), "*", "page.html"))
	if err != nil || len(pages) == 0 {
		b.Skipf("no sample pages: %v", err)
	}
	var raws [][]byte
	for _, p := range pages {
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		raws = append(raws, raw)
	}
	u, _ := url.Parse("https://example.com/a/page")
	for b.Loop() {
		for _, raw := range raws {
			doc, err := ParseDocument(bytes.NewReader(raw))
			if err != nil {
				b.Fatal(err)
			}
			Extract(doc, u)
		}
	}
}
