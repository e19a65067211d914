// Command blocktrain trains the markdown package's block model on the WCXB
// development pages and reports how it does on pages it was not trained
// on: the pages are split into folds by domain, a model is trained on all
// folds but one and scored on that one, with WCXB's metric, beside the
// rules on the same pages. Then it trains the model on all pages and
// writes it where the package embeds it.
//
//	go run ./orchestrator/markdown/internal/blocktrain -cases <wcxb>/cases -out orchestrator/markdown/blockmodel.json.gz
//
// A block's label is whether most of its words run the same way in the
// page's reference text. The same pages and flags give the same model.
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/glimpse/glimpse/orchestrator/internal/evalhalf"
	"github.com/glimpse/glimpse/orchestrator/markdown"
	"github.com/glimpse/glimpse/orchestrator/markdown/internal/boost"
	metric "github.com/glimpse/glimpse/orchestrator/markdown/internal/score"
	"github.com/glimpse/glimpse/orchestrator/meta"
)

func main() {
	log.SetFlags(0)
	cfg := config{params: boost.DefaultParams()}
	flag.StringVar(&cfg.cases, "cases", "", "the WCXB cases folder (required)")
	flag.StringVar(&cfg.out, "out", "", "where to write the model trained on all pages (gzipped JSON); none when empty")
	flag.IntVar(&cfg.folds, "folds", 5, "folds of the cross-validation; 0 or 1 skips it")
	flag.Float64Var(&cfg.threshold, "threshold", 0.4, "least probability of a kept block")
	flag.StringVar(&cfg.also, "also", "", "comma-separated other thresholds to score the folds with, for comparison")
	flag.IntVar(&cfg.params.Trees, "trees", cfg.params.Trees, "boosting rounds")
	flag.IntVar(&cfg.params.Depth, "depth", cfg.params.Depth, "depth of each tree")
	flag.Float64Var(&cfg.params.Rate, "rate", cfg.params.Rate, "learning rate")
	flag.StringVar(&cfg.only, "only", "", "comma-separated kinds or case-name parts to keep (all when empty)")
	flag.StringVar(&cfg.half, "half", "", "even or odd: only the cases of that half of the set (all when empty)")
	flag.StringVar(&cfg.tsv, "tsv", "", "a file for the per-page scores of the folds (name, kind, fold, rules F1, model F1)")
	flag.Parse()
	if err := run(cfg); err != nil {
		log.Fatal(err)
	}
}

type config struct {
	cases, out, only, tsv string
	half, also            string
	folds                 int
	threshold             float64
	params                boost.Params
}

// page is one case with its blocks, their labels, and the rules' score.
type page struct {
	name, kind, domain, url string
	reference               string
	with, without           []string
	features                [][]float32
	labels, weights         []float32
	rules                   score
	fold                    int
}

type score struct{ p, r, f1, with, without float64 }

func run(cfg config) error {
	if cfg.cases == "" {
		return errors.New("name the WCXB cases folder with -cases")
	}
	thresholds := []float64{cfg.threshold}
	for _, v := range strings.Split(cfg.also, ",") {
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 || f >= 1 {
			return fmt.Errorf("-also: %q is not a probability between 0 and 1", v)
		}
		thresholds = append(thresholds, f)
	}
	start := time.Now()
	pages, err := load(cfg)
	if err != nil {
		return err
	}
	nBlocks := 0
	for _, p := range pages {
		nBlocks += len(p.features)
	}
	log.Printf("%d pages, %d blocks, read in %s", len(pages), nBlocks, time.Since(start).Round(time.Second))
	if cfg.folds > 1 {
		models := make([][]score, len(thresholds))
		for j := range models {
			models[j] = make([]score, len(pages))
		}
		for k := range cfg.folds {
			t := time.Now()
			m, err := trainBoost(pages, func(p *page) bool { return p.fold != k }, cfg)
			if err != nil {
				return err
			}
			trained := time.Since(t)
			var test []int
			for i, p := range pages {
				if p.fold == k {
					test = append(test, i)
				}
			}
			for j, th := range thresholds {
				data, err := markdown.MarshalBlockModel(m, th)
				if err != nil {
					return err
				}
				bm, err := markdown.ParseBlockModel(data)
				if err != nil {
					return err
				}
				scores := scoreWith(cfg, pages, test, bm)
				for jj, i := range test {
					models[j][i] = scores[jj]
				}
			}
			log.Printf("fold %d: %d pages, trained in %s, scored in %s", k+1, len(test), trained.Round(time.Second),
				(time.Since(t) - trained).Round(time.Second))
		}
		for j, th := range thresholds {
			fmt.Printf("\nblocks kept from probability %.2f:\n", th)
			report(pages, models[j])
		}
		model := models[0]
		if cfg.tsv != "" {
			var sb strings.Builder
			for i, p := range pages {
				fmt.Fprintf(&sb, "%s\t%s\t%d\t%.4f\t%.4f\n", p.name, p.kind, p.fold, p.rules.f1, model[i].f1)
			}
			if err := os.WriteFile(cfg.tsv, []byte(sb.String()), 0o644); err != nil {
				return err
			}
		}
	}
	if cfg.out != "" {
		m, err := trainBoost(pages, func(*page) bool { return true }, cfg)
		if err != nil {
			return err
		}
		data, err := markdown.MarshalBlockModel(m, cfg.threshold)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		z.Write(data)
		z.Close()
		if err := os.WriteFile(cfg.out, buf.Bytes(), 0o644); err != nil {
			return err
		}
		log.Printf("wrote %s: %d trees, %d bytes", cfg.out, len(m.Trees), buf.Len())
	}
	log.Printf("done in %s", time.Since(start).Round(time.Second))
	return nil
}

// load reads every case, its blocks and labels, and scores the rules on it.
func load(cfg config) ([]*page, error) {
	entries, err := os.ReadDir(cfg.cases)
	if err != nil {
		return nil, fmt.Errorf("cannot list the cases: %w", err)
	}
	var only []string
	if cfg.only != "" {
		only = strings.Split(cfg.only, ",")
	}
	var pages []*page
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if len(only) > 0 && !containsAny(e.Name(), only) || !evalhalf.KeepIn(cfg.half, e.Name()) {
			continue
		}
		dir := filepath.Join(cfg.cases, e.Name())
		raw, err := os.ReadFile(filepath.Join(dir, "case.json"))
		if err != nil {
			continue
		}
		var c struct {
			URL      string   `json:"url"`
			PageType string   `json:"page_type"`
			Domain   string   `json:"domain"`
			With     []string `json:"with"`
			Without  []string `json:"without"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, fmt.Errorf("case %s: %w", e.Name(), err)
		}
		ref, err := os.ReadFile(filepath.Join(dir, "main_content.txt"))
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", e.Name(), err)
		}
		if c.PageType == "" {
			c.PageType = "article"
		}
		p := &page{name: e.Name(), kind: c.PageType, domain: c.Domain, url: c.URL, reference: string(ref),
			with: c.With, without: c.Without}
		if cfg.folds > 1 {
			h := fnv.New32a()
			h.Write([]byte(c.Domain))
			p.fold = int(h.Sum32() % uint32(cfg.folds))
		}
		pages = append(pages, p)
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("no cases in %s", cfg.cases)
	}
	errs := make([]error, len(pages))
	parallel(len(pages), func(i int) {
		errs[i] = loadPage(cfg, pages[i])
	})
	return pages, errors.Join(errs...)
}

func containsAny(s string, parts []string) bool {
	for _, o := range parts {
		if strings.Contains(s, o) {
			return true
		}
	}
	return false
}

func parallel(n int, do func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				do(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// open parses a case's page.
func open(cfg config, p *page) (*markdownInput, error) {
	f, err := os.Open(filepath.Join(cfg.cases, p.name, "page.html.gz"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("case %s: %w", p.name, err)
	}
	raw, err := io.ReadAll(z)
	if err != nil {
		return nil, fmt.Errorf("case %s: %w", p.name, err)
	}
	doc, err := meta.ParseDocument(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("case %s: %w", p.name, err)
	}
	u, err := url.Parse(p.url)
	if err != nil || p.url == "" {
		u, _ = url.Parse("http://127.0.0.1/" + p.name + "/")
	}
	return &markdownInput{doc: doc, url: u}, nil
}

type markdownInput struct {
	doc *goquery.Document
	url *url.URL
}

func loadPage(cfg config, p *page) error {
	in, err := open(cfg, p)
	if err != nil {
		return err
	}
	blocks, md, err := markdown.PageBlocks(context.Background(), in.doc, in.url, markdown.Options{})
	p.rules = scoreAnswer(p, md, err)
	if err != nil {
		// A page the package refuses (too large) teaches nothing.
		return nil
	}
	ref := newReference(p.reference)
	total := 0
	for _, b := range blocks {
		total += max(1, len(metric.WCXBTokens(b.Text)))
	}
	for _, b := range blocks {
		toks := metric.WCXBTokens(b.Text)
		p.features = append(p.features, b.Features)
		label := float32(0)
		if ref.share(toks) >= 0.5 {
			label = 1
		}
		p.labels = append(p.labels, label)
		// Every page weighs the same in all, as in the mean of per-page
		// F1; within a page a block weighs its words.
		p.weights = append(p.weights, float32(100*max(1, len(toks)))/float32(total))
	}
	return nil
}

func scoreAnswer(p *page, md string, err error) score {
	text := ""
	if err == nil {
		text = metric.Text(md)
	}
	var s score
	s.p, s.r, s.f1 = metric.WCXBF1(text, p.reference)
	s.with, s.without = metric.SnippetRate(text, p.with), metric.SnippetRate(text, p.without)
	return s
}

// reference is a page's reference text as word n-grams, to label blocks.
type reference struct {
	grams map[string]bool
}

func newReference(text string) reference {
	toks := metric.WCXBTokens(text)
	r := reference{grams: map[string]bool{}}
	for i := range toks {
		for n := 1; n <= 3 && i+n <= len(toks); n++ {
			r.grams[strings.Join(toks[i:i+n], " ")] = true
		}
	}
	return r
}

// share is the part of toks' word triples (or of the whole, when shorter)
// found in the reference.
func (r reference) share(toks []string) float64 {
	if len(toks) == 0 {
		return 0
	}
	n := min(3, len(toks))
	found := 0
	for i := 0; i+n <= len(toks); i++ {
		if r.grams[strings.Join(toks[i:i+n], " ")] {
			found++
		}
	}
	return float64(found) / float64(len(toks)-n+1)
}

// trainBoost fits a model on the blocks of the pages use accepts.
func trainBoost(pages []*page, use func(*page) bool, cfg config) (*boost.Model, error) {
	var x [][]float32
	var y, w []float32
	for _, p := range pages {
		if !use(p) {
			continue
		}
		x = append(x, p.features...)
		y = append(y, p.labels...)
		w = append(w, p.weights...)
	}
	params := cfg.params
	params.FeatureNames = markdown.BlockFeatureNames()
	return boost.Train(x, y, w, params)
}

// scoreWith scores the model's answers on the pages named by index.
func scoreWith(cfg config, pages []*page, idx []int, m *markdown.BlockModel) []score {
	out := make([]score, len(idx))
	parallel(len(idx), func(j int) {
		p := pages[idx[j]]
		in, err := open(cfg, p)
		if err != nil {
			out[j] = scoreAnswer(p, "", err)
			return
		}
		md, err := markdown.Article(context.Background(), in.doc, in.url, markdown.Options{Chooser: markdown.ChooseByModel, BlockModel: m})
		out[j] = scoreAnswer(p, md, err)
	})
	return out
}

// report prints the folds' figures, rules beside model, per kind and
// overall, and per half of the set.
func report(pages []*page, model []score) {
	kinds := []string{"article", "forum", "product", "collection", "listing", "documentation", "service"}
	fmt.Printf("%-14s %4s | %6s %6s %6s %6s | %6s %6s %6s %6s\n", "kind", "N", "rules", "P", "R", "w/o", "model", "P", "R", "w/o")
	line := func(name string, keep func(p *page) bool) {
		var n int
		var a, b score
		for i, p := range pages {
			if !keep(p) {
				continue
			}
			n++
			a = add(a, p.rules)
			b = add(b, model[i])
		}
		if n == 0 {
			return
		}
		a, b = div(a, n), div(b, n)
		fmt.Printf("%-14s %4d | %6.3f %6.3f %6.3f %6.3f | %6.3f %6.3f %6.3f %6.3f\n", name, n, a.f1, a.p, a.r, a.without, b.f1, b.p, b.r, b.without)
	}
	for _, k := range kinds {
		line(k, func(p *page) bool { return p.kind == k })
	}
	line("all", func(*page) bool { return true })
	line("even half", func(p *page) bool { return caseNumber(p.name)%2 == 0 })
	line("odd half", func(p *page) bool { return caseNumber(p.name)%2 == 1 })
	wins, losses := 0, 0
	for i, p := range pages {
		switch d := model[i].f1 - p.rules.f1; {
		case d > 0.01:
			wins++
		case d < -0.01:
			losses++
		}
	}
	fmt.Printf("pages the model does better on by more than 0.01: %d, worse: %d\n", wins, losses)
}

func caseNumber(name string) int {
	end := 0
	for end < len(name) && name[end] >= '0' && name[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(name[:end])
	return n
}

func add(a, b score) score {
	return score{a.p + b.p, a.r + b.r, a.f1 + b.f1, a.with + b.with, a.without + b.without}
}

func div(a score, n int) score {
	f := float64(n)
	return score{a.p / f, a.r / f, a.f1 / f, a.with / f, a.without / f}
}
