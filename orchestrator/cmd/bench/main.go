// Command bench measures glimpse against the least raw DevTools work that
// gives the same result, on the same Chromium, in one run: `make bench`.
//
// It starts bin/sidecar (one Chromium) and bin/orchestrator pointed at it
// as separate processes on loopback, so the baseline can dial the very same
// browser and each side's memory can be read apart, plus a loopback page
// server. It prints one table of throughput, latency and ratios to the
// baseline, where glimpse's time goes per render phase, memory before and
// after, leaked targets and contexts, and each budget with PASS or FAIL.
//
// Exit status: 0; 1 when a request failed, something leaked, the run hit
// its time limit, or (with -strict) a budget failed; 2 when it could not
// start.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// options are the benchmark's flags.
type options struct {
	root          string // the repository
	binDir        string
	evalDir       string
	rounds        int
	corpusPages   int
	pdfCorpus     []string
	cacheDuration time.Duration
	cacheConns    int
	soak          int
	soakConc      int
	warm          int
	strict        bool
	profileDir    string
	short         bool
	timeLimit     time.Duration
	keep          bool
	verbose       bool
	params        string   // added to glimpse's metadata and PDF queries
	steps         []string // only these steps, after the warm-up
}

func parseOptions(args []string, getenv func(string) string, usage io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(usage)
	fs.StringVar(&o.binDir, "bin", "bin", "folder with the orchestrator and sidecar binaries (make build), relative to the repository")
	fs.StringVar(&o.evalDir, "eval-dir", "", "folder of real pages, <case>/page.html (default $GLIMPSE_EVAL_DIR, else ../shared/eval/metadata/cases beside the repository); run without it if absent")
	fs.IntVar(&o.rounds, "rounds", 2, "rounds of each baseline/glimpse pair, alternating which goes first")
	fs.IntVar(&o.corpusPages, "corpus-pages", 12, "real pages in the metadata rows, spread over the corpus (-1: all)")
	pdfCorpus := fs.String("pdf-corpus", "acast,crn,fast-company,twitter-gif", "real pages in the PDF rows, by case name")
	fs.DurationVar(&o.cacheDuration, "cache-duration", 10*time.Second, "length of the cache-hit run")
	fs.IntVar(&o.cacheConns, "cache-connections", 64, "connections of the cache-hit run")
	fs.IntVar(&o.soak, "soak", 1000, "requests of the mixed soak")
	fs.IntVar(&o.soakConc, "soak-concurrency", 8, "concurrent requests during the soak")
	fs.IntVar(&o.warm, "warm", 2, "GLIMPSE_WARM for the orchestrator: ready browser contexts kept")
	fs.BoolVar(&o.strict, "strict", false, "exit non-zero when a budget fails (timings on shared machines are noisy)")
	fs.StringVar(&o.profileDir, "profile", "", "folder to write CPU and heap profiles of the orchestrator into (GLIMPSE_PPROF), with their top functions printed")
	fs.BoolVar(&o.short, "short", false, "a quick run: one round, fewer pages, a short cache run and soak")
	fs.DurationVar(&o.timeLimit, "time-limit", 4*time.Minute+50*time.Second, "the whole run's limit; hitting it fails the run")
	fs.BoolVar(&o.keep, "keep", false, "keep the working folder (logs, stored PDFs) instead of removing it")
	fs.BoolVar(&o.verbose, "v", false, "print each step as it starts")
	only := fs.String("steps", "", `only these steps after the warm-up, comma-separated: "metadata c1", "metadata c4", "metadata c4 without pixels", "PDF c1", "PDF c4", "metadata with defaults", "metadata with defaults without ping", "Markdown with defaults", "cache hits", "soak"`)
	fs.StringVar(&o.params, "params", "", "query parameters added to every rendering request of glimpse, such as adblock=false, to see what a control costs")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "bench: glimpse against the raw DevTools baseline on the same Chromium. Flags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q: bench takes flags only (see -h)", fs.Arg(0))
	}
	for _, n := range strings.Split(*pdfCorpus, ",") {
		if n = strings.TrimSpace(n); n != "" {
			o.pdfCorpus = append(o.pdfCorpus, n)
		}
	}
	for _, n := range strings.Split(*only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			o.steps = append(o.steps, n)
		}
	}
	if o.short {
		o.rounds, o.corpusPages, o.cacheDuration, o.soak = 1, 4, 4*time.Second, 200
		o.pdfCorpus = o.pdfCorpus[:min(2, len(o.pdfCorpus))]
	}
	switch {
	case o.rounds < 1:
		return o, fmt.Errorf("-rounds %d: at least one round is needed", o.rounds)
	case o.soak < 20:
		return o, fmt.Errorf("-soak %d: the soak needs at least 20 requests to hold every kind", o.soak)
	case o.soakConc < 1 || o.cacheConns < 1:
		return o, errors.New("-soak-concurrency and -cache-connections must be at least 1")
	}

	root, err := findRoot()
	if err != nil {
		return o, err
	}
	o.root = root
	if !filepath.IsAbs(o.binDir) {
		o.binDir = filepath.Join(root, o.binDir)
	}
	if o.evalDir == "" {
		o.evalDir = getenv("GLIMPSE_EVAL_DIR")
	}
	if o.evalDir == "" {
		o.evalDir = filepath.Join(root, "..", "shared", "eval", "metadata", "cases")
	}
	return o, nil
}

// findRoot walks up from the working directory to the module's go.mod.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && strings.Contains(string(b), "module github.com/glimpse/glimpse\n") {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("run bench from inside the glimpse repository (no go.mod of github.com/glimpse/glimpse above %s)", dir)
		}
	}
}

func main() {
	o, err := parseOptions(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	os.Exit(run(ctx, o, os.Stdout))
}
