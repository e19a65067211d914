package markdown

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/glimpse/glimpse/internal/testtool"
	"github.com/glimpse/glimpse/orchestrator/internal/evalhalf"
	"github.com/glimpse/glimpse/orchestrator/meta"
)

// The WCXB development set (shared/eval/wcxb) holds real pages of seven
// kinds (articles, forums, products, collections, listings, documentation,
// service pages) with the human-reviewed text of their main content. This
// file scores Article on it offline with WCXB's own metric, as the set's
// score.py scores the running service: the Markdown reduced to text by the
// Markdown corpus's scorer, lower-cased \w+ words, precision, recall and F1
// of the clipped word bags, and the shares of the case's `with` snippets
// found and of its `without` snippets found, averaged per kind and overall.
//
// The whole set takes minutes, so it runs only when asked:
//
//	GLIMPSE_EVAL_WCXB=1 go test -run TestWCXB -v ./orchestrator/markdown/
//
// with GLIMPSE_EVAL_WCXB_DIR naming the cases folder when it is not in its
// usual place, GLIMPSE_EVAL_WCXB_ONLY a comma-separated list of kinds or
// case-name parts, GLIMPSE_EVAL_HALF=even or odd one half of the set (see
// evalhalf), and GLIMPSE_EVAL_WCXB_SAVE a folder to keep each answer
// in as <name>.md (score.py --answers reads the same folder, and the two
// agree). A fixed small sample of the set runs by default, with floors.

const (
	wcxbEnv     = "GLIMPSE_EVAL_WCXB"
	wcxbDirEnv  = "GLIMPSE_EVAL_WCXB_DIR"
	wcxbOnlyEnv = "GLIMPSE_EVAL_WCXB_ONLY"
	wcxbSaveEnv = "GLIMPSE_EVAL_WCXB_SAVE"
)

// wcxbKinds is evaluate.py's order of page kinds.
var wcxbKinds = []string{"article", "forum", "product", "collection", "listing", "documentation", "service"}

type wcxbCase struct {
	name, kind string
	url        string
	reference  string
	with       []string
	without    []string
}

type wcxbScore struct {
	name, kind        string
	p, r, f1          float64
	withRate, without float64
	refToks, gotToks  int
	elapsed           time.Duration
	err               error
}

func wcxbDir(t *testing.T) string {
	dir := os.Getenv(wcxbDirEnv)
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "eval", "wcxb", "cases")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the WCXB set is not at %s (set %s to its cases folder to score against it)", dir, wcxbDirEnv)
	}
	return dir
}

// loadWCXB reads the cases whose names keep accepts, in name order.
func loadWCXB(t *testing.T, dir string, keep func(name string, i int) bool) []wcxbCase {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("cannot list the WCXB set at %s: %v", dir, err)
	}
	var out []wcxbCase
	for i, e := range entries {
		if !e.IsDir() || !keep(e.Name(), i) {
			continue
		}
		d := filepath.Join(dir, e.Name())
		raw, err := os.ReadFile(filepath.Join(d, "case.json"))
		if err != nil {
			continue
		}
		var c struct {
			URL      string   `json:"url"`
			PageType string   `json:"page_type"`
			With     []string `json:"with"`
			Without  []string `json:"without"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("case %s: case.json: %v", e.Name(), err)
		}
		ref, err := os.ReadFile(filepath.Join(d, "main_content.txt"))
		if err != nil {
			t.Fatalf("case %s: %v", e.Name(), err)
		}
		if c.PageType == "" {
			c.PageType = "article"
		}
		out = append(out, wcxbCase{name: e.Name(), kind: c.PageType, url: c.URL, reference: string(ref),
			with: c.With, without: c.Without})
	}
	return out
}

func readGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(z)
}

// scoreWCXB runs Article on every case, on as many goroutines as there are
// processors.
func scoreWCXB(t *testing.T, dir string, cases []wcxbCase) []wcxbScore {
	out := make([]wcxbScore, len(cases))
	save := os.Getenv(wcxbSaveEnv)
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				out[i] = scoreWCXBCase(dir, cases[i], save)
			}
		})
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func scoreWCXBCase(dir string, c wcxbCase, save string) wcxbScore {
	s := wcxbScore{name: c.name, kind: c.kind}
	page, err := readGzip(filepath.Join(dir, c.name, "page.html.gz"))
	if err != nil {
		s.err = err
		return s
	}
	pageURL, err := url.Parse(c.url)
	if err != nil || c.url == "" {
		pageURL, _ = url.Parse("http://127.0.0.1/" + c.name + "/")
	}
	start := time.Now()
	doc, err := meta.ParseDocument(bytes.NewReader(page))
	var md string
	if err == nil {
		md, err = Article(context.Background(), doc, pageURL, Options{})
	}
	s.elapsed = time.Since(start)
	s.err = err
	if save != "" && err == nil {
		_ = os.WriteFile(filepath.Join(save, c.name+".md"), []byte(md), 0o644)
	}
	text := ""
	if err == nil {
		text = scoreText(md)
	}
	s.p, s.r, s.f1 = wcxbF1(text, c.reference)
	s.refToks, s.gotToks = len(wcxbTokens(c.reference)), len(wcxbTokens(text))
	s.withRate, s.without = snippetRate(text, c.with), snippetRate(text, c.without)
	return s
}

type wcxbMeans struct {
	n                      int
	p, r, f1, with, withou float64
	errors                 int
	elapsed                time.Duration
}

func wcxbMean(scores []wcxbScore, kind string) wcxbMeans {
	var m wcxbMeans
	for _, s := range scores {
		if kind != "" && s.kind != kind {
			continue
		}
		m.n++
		m.p += s.p
		m.r += s.r
		m.f1 += s.f1
		m.with += s.withRate
		m.withou += s.without
		m.elapsed += s.elapsed
		if s.err != nil {
			m.errors++
		}
	}
	if m.n > 0 {
		n := float64(m.n)
		m.p, m.r, m.f1, m.with, m.withou = m.p/n, m.r/n, m.f1/n, m.with/n, m.withou/n
	}
	return m
}

func wcxbTable(scores []wcxbScore) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-14s %4s %6s %6s %6s %6s %6s %4s %9s\n", "type", "N", "F1", "P", "R", "with", "w/o", "err", "ms/page")
	for _, k := range append(append([]string(nil), wcxbKinds...), "") {
		m := wcxbMean(scores, k)
		if m.n == 0 {
			continue
		}
		name := k
		if name == "" {
			name = "all"
		}
		fmt.Fprintf(&sb, "%-14s %4d %6.3f %6.3f %6.3f %6.3f %6.3f %4d %9.1f\n", name, m.n, m.f1, m.p, m.r, m.with, m.withou,
			m.errors, float64(m.elapsed.Microseconds())/1000/float64(m.n))
	}
	return sb.String()
}

// TestWCXBMainContent scores the whole set (or the part GLIMPSE_EVAL_WCXB_ONLY
// names) and logs the per-kind table and the worst pages.
func TestWCXBMainContent(t *testing.T) {
	if os.Getenv(wcxbEnv) == "" {
		t.Skipf("scoring the WCXB set takes minutes; set %s=1 to run it", wcxbEnv)
	}
	dir := wcxbDir(t)
	var only []string
	if v := os.Getenv(wcxbOnlyEnv); v != "" {
		only = strings.Split(v, ",")
	}
	cases := loadWCXB(t, dir, func(name string, _ int) bool {
		if !evalhalf.Keep(name) {
			return false
		}
		if len(only) == 0 {
			return true
		}
		for _, o := range only {
			if strings.Contains(name, o) {
				return true
			}
		}
		return false
	})
	scores := scoreWCXB(t, dir, cases)
	t.Logf("WCXB, %d pages:\n%s", len(scores), wcxbTable(scores))
	worst := append([]wcxbScore(nil), scores...)
	sort.Slice(worst, func(i, j int) bool { return worst[i].f1 < worst[j].f1 })
	var lines []string
	for _, s := range worst[:min(40, len(worst))] {
		line := fmt.Sprintf("  %-52s P=%.3f R=%.3f F1=%.3f ref=%d got=%d", s.name, s.p, s.r, s.f1, s.refToks, s.gotToks)
		if s.err != nil {
			line += " error: " + s.err.Error()
		}
		lines = append(lines, line)
	}
	t.Logf("lowest F1:\n%s", strings.Join(lines, "\n"))
	if save := os.Getenv(wcxbSaveEnv); save != "" {
		var tsv strings.Builder
		for _, s := range scores {
			fmt.Fprintf(&tsv, "%s\t%s\t%.6f\t%.6f\t%.6f\t%.4f\t%.4f\t%d\n", s.name, s.kind, s.p, s.r, s.f1, s.withRate, s.without,
				s.elapsed.Microseconds())
		}
		if err := os.WriteFile(filepath.Join(save, "scores.tsv"), []byte(tsv.String()), 0o644); err != nil {
			t.Fatalf("cannot keep the scores: %v", err)
		}
	}
}

// wcxbSampleEvery picks the default sample: one case in this many.
const wcxbSampleEvery = 30

// TestWCXBSampleKeepsItsFloors scores a fixed sample of the set (one page in
// wcxbSampleEvery, about fifty, of every kind) so that a change that costs
// the non-article kinds shows in an ordinary test run.
func TestWCXBSampleKeepsItsFloors(t *testing.T) {
	testtool.WithoutRace(t)
	if testing.Short() {
		t.Skip("scoring a sample of the WCXB set takes seconds; skipped with -short")
	}
	dir := wcxbDir(t)
	cases := loadWCXB(t, dir, func(_ string, i int) bool { return i%wcxbSampleEvery == 0 })
	scores := scoreWCXB(t, dir, cases)
	t.Logf("WCXB sample, %d pages:\n%s", len(scores), wcxbTable(scores))
	all := wcxbMean(scores, "")
	if all.errors > 0 {
		t.Errorf("%d pages of the sample failed", all.errors)
	}
	if all.f1 < wcxbSampleFloor {
		t.Errorf("mean F1 on the sample is %.4f, under its floor %.4f", all.f1, wcxbSampleFloor)
	}
}

// wcxbSampleFloor is the sample's floor, a little under the figure reached.
const wcxbSampleFloor = 0.80

func TestWCXBTokensMatchEvaluatePy(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"words are lower-cased and split at punctuation", "Hello, World! it's", []string{"hello", "world", "it", "s"}},
		{"the underscore is a word character", "snake_case x", []string{"snake_case", "x"}},
		{"letters of other scripts are words", "Grüße – 東京", []string{"grüße", "東京"}},
		{"numbers are words", "v1.2 costs $30", []string{"v1", "2", "costs", "30"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := wcxbTokens(tc.text); strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("wcxbTokens(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

// BenchmarkArticleOnTheWCXBSample times Article (parsing excluded) on the
// default sample of the WCXB set, one page after another.
func BenchmarkArticleOnTheWCXBSample(b *testing.B) {
	t := &testing.T{}
	dir := filepath.Join("..", "..", "..", "shared", "eval", "wcxb", "cases")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("the WCXB set is not at %s", dir)
	}
	cases := loadWCXB(t, dir, func(_ string, i int) bool { return i%wcxbSampleEvery == 0 })
	type page struct {
		doc *goquery.Document
		url *url.URL
	}
	var pages []page
	for _, c := range cases {
		raw, err := readGzip(filepath.Join(dir, c.name, "page.html.gz"))
		if err != nil {
			b.Fatal(err)
		}
		doc, err := meta.ParseDocument(bytes.NewReader(raw))
		if err != nil {
			b.Fatal(err)
		}
		u, _ := url.Parse(c.url)
		pages = append(pages, page{doc, u})
	}
	b.ResetTimer()
	for b.Loop() {
		for _, p := range pages {
			if _, err := Article(context.Background(), p.doc, p.url, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*len(pages)), "ms/page")
}
