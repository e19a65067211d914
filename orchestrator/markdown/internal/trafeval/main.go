// Command trafeval writes the answers of go-trafilatura, converted to
// Markdown by html-to-markdown, for the cases of an evaluation set (each
// <name>/page.html.gz or page.html with a case.json giving its url), as
// <name>.md in a folder that the set's score.py scores with --answers. It
// is the comparison the content engine is measured against, in a module
// of its own so that neither library enters glimpse's build.
//
//	go run . -cases ../../../../../shared/eval/wcxb/cases -out /some/dir
//	python3 .../wcxb/score.py --answers /some/dir
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/markusmobius/go-trafilatura"
)

func main() {
	cases := flag.String("cases", "", "the folder of cases")
	out := flag.String("out", "", "the folder to write <name>.md answers to")
	jobs := flag.Int("jobs", runtime.GOMAXPROCS(0), "pages extracted at once")
	flag.Parse()
	if *cases == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	entries, err := os.ReadDir(*cases)
	if err != nil {
		log.Fatalf("cannot list the cases: %v", err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatalf("cannot make the answers folder: %v", err)
	}
	start := time.Now()
	next := make(chan string)
	var wg sync.WaitGroup
	for range max(1, *jobs) {
		wg.Go(func() {
			for name := range next {
				md, err := answer(filepath.Join(*cases, name))
				if err != nil {
					log.Printf("%s: %v", name, err)
					continue // no answer file: score.py counts an error
				}
				if err := os.WriteFile(filepath.Join(*out, name+".md"), []byte(md), 0o644); err != nil {
					log.Fatalf("cannot write the answer: %v", err)
				}
			}
		})
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() {
			next <- e.Name()
			n++
		}
	}
	close(next)
	wg.Wait()
	fmt.Printf("%d pages in %v, %.1f ms a page\n", n, time.Since(start).Round(time.Millisecond),
		float64(time.Since(start).Milliseconds())*float64(max(1, *jobs))/float64(max(1, n)))
}

func answer(dir string) (string, error) {
	page, err := readPage(dir)
	if err != nil {
		return "", err
	}
	var c struct {
		URL string `json:"url"`
	}
	if raw, err := os.ReadFile(filepath.Join(dir, "case.json")); err == nil {
		_ = json.Unmarshal(raw, &c)
	}
	opts := trafilatura.Options{EnableFallback: true, IncludeImages: true, IncludeLinks: true,
		ExcludeComments: true}
	if u, err := url.Parse(c.URL); err == nil && c.URL != "" {
		opts.OriginalURL = u
	}
	res, err := trafilatura.Extract(bytes.NewReader(page), opts)
	if err != nil || res == nil || res.ContentNode == nil {
		return "", nil // nothing found: an empty answer
	}
	md, err := htmltomarkdown.ConvertNode(res.ContentNode)
	if err != nil {
		return "", err
	}
	return string(md), nil
}

func readPage(dir string) ([]byte, error) {
	if b, err := os.ReadFile(filepath.Join(dir, "page.html")); err == nil {
		return b, nil
	}
	f, err := os.Open(filepath.Join(dir, "page.html.gz"))
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
