package clients_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/internal/testtool"
	"github.com/glimpse/glimpse/orchestrator/document/documenttest"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// The real Microlink clients, @microlink/mql and the microlink CLI at the
// versions .ci/clients locks, against a running glimpse: glimpse promises
// that code written for the Microlink API works when pointed at it, and only
// the clients themselves can show how they send options and read answers.

// envClientsDir names the directory the clients are installed in (its
// node_modules), which `make test` sets.
const envClientsDir = "GLIMPSE_CLIENTS_DIR"

// clientsDir finds the installed clients: $GLIMPSE_CLIENTS_DIR, then the
// cache `make test` installs them into. Like the MinIO and helm binaries,
// a missing install fails the test (skips it under -short) and says how
// to get it.
func clientsDir(t *testing.T) string {
	t.Helper()
	return installedClients(t, "the Microlink clients", "node_modules/@microlink/mql/package.json", "node_modules/.bin/microlink")
}

// installedClients finds the folder where the npm packages that
// .ci/clients locks are installed, holding files: $GLIMPSE_CLIENTS_DIR,
// then the cache `make test` installs them into. what names them in the
// failure (a skip under -short).
func installedClients(t *testing.T, what string, files ...string) string {
	t.Helper()
	check := func(dir string) error {
		for _, p := range files {
			if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
				return err
			}
		}
		return nil
	}
	if dir := os.Getenv(envClientsDir); dir != "" {
		if err := check(dir); err != nil {
			testtool.Missingf(t, "%s is set to %s, but %s are not installed there (%v): run `make deps`, or unset it", envClientsDir, dir, what, err)
		}
		return dir
	}
	var cached string
	if home, err := os.UserHomeDir(); err == nil {
		cached = filepath.Join(home, ".cache", "glimpse", "npm")
		if check(cached) == nil {
			return cached
		}
	}
	testtool.Missingf(t, "%s are not installed: %s is unset and %s has none; run `make deps` (or `make test`), which installs the versions .ci/clients locks", what, envClientsDir, cached)
	return ""
}

func nodeBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		testtool.Missingf(t, "node is not installed: run `make deps`, which installs Debian's nodejs and npm")
	}
	return p
}

// clientCase is one line the mql script prints.
type clientCase struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	MS     int64  `json:"ms"`
	Done   *int   `json:"done"`
}

func TestMicrolinkClients(t *testing.T) {
	dir := clientsDir(t)
	node := nodeBinary(t)
	started := time.Now()

	app := e2e.Launch(t, e2e.Logger(), `
anonymous: {name: test, limit: 1000000, window: 1h}
plans:
  - {name: pro, limit: 1000000, window: 1h}
  - {name: tiny, limit: 1, window: 1h}
keys:
  - {key: k-good, plan: pro}
  - {key: k-tiny, plan: tiny}
`, nil)
	ps := clientPages(t)
	closedURL := refusingURL(t)

	t.Run("mql", func(t *testing.T) {
		runClientScript(t, node, dir, filepath.Join("testdata", "clients", "mql.mjs"), 75*time.Second,
			"GLIMPSE_ENDPOINT="+app.URL()+"/", "GLIMPSE_PAGES="+ps.URL, "GLIMPSE_CLOSED_URL="+closedURL)
	})

	t.Run("cli", func(t *testing.T) { testMicrolinkCLI(t, dir, app.URL()+"/", ps.URL) })
	t.Logf("the clients' cases took %s", time.Since(started).Round(time.Millisecond))
}

// refusingURL is a loopback address nothing listens on, for a target
// that refuses the connection.
func refusingURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return "http://" + l.Addr().String() + "/"
}

// runClientScript runs a Node script that drives a client against glimpse,
// with the clients' folder as its argument and env added to its
// environment (GLIMPSE_CASES passes through), then judges each case it
// reports as a subtest of t.
func runClientScript(t *testing.T, node, dir, script string, within time.Duration, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, dir)
	cmd.Env = append(append(os.Environ(), env...), "GLIMPSE_CASES="+os.Getenv("GLIMPSE_CASES"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	cases, done := parseClientCases(t, out)
	if err != nil || done == nil {
		t.Fatalf("the script %s did not finish (%v):\n%s\n%s", filepath.Base(script), err, out, stderr.String())
	}
	if *done != len(cases) || len(cases) == 0 {
		t.Errorf("the script ran %d cases but reported %d", len(cases), *done)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { judgeClientCase(t, c) })
	}
}

func parseClientCases(t *testing.T, out []byte) (cases []clientCase, done *int) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	names := map[string]bool{}
	for sc.Scan() {
		var c clientCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("the mql script printed a line that is not a case: %q", sc.Text())
		}
		if c.Done != nil {
			done = c.Done
			continue
		}
		if names[c.Name] {
			t.Fatalf("the mql script reported %q twice", c.Name)
		}
		names[c.Name] = true
		cases = append(cases, c)
	}
	return cases, done
}

func judgeClientCase(t *testing.T, c clientCase) {
	if !c.OK {
		t.Errorf("%s (%d ms)", c.Detail, c.MS)
	} else if c.Detail != "" {
		t.Log(c.Detail)
	}
}

// testMicrolinkCLI runs the microlink CLI the way its help shows: the
// target with its options after `&`, here with --endpoint at glimpse.
func testMicrolinkCLI(t *testing.T, dir, endpoint, pages string) {
	bin := filepath.Join(dir, "node_modules", ".bin", "microlink")
	interop, err := filepath.Abs(filepath.Join("testdata", "clients", "cli-interop.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, args ...string) (stdout, stderr string, code int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append(args, "--endpoint="+endpoint)...)
		// No update check over the network, no colours in what we read, and
		// the CLI's own module mix-up mended (see cli-interop.cjs).
		cmd.Env = append(os.Environ(), "NO_UPDATE_NOTIFIER=1", "NO_COLOR=1", "FORCE_COLOR=0", "CI=1", "MICROLINK_API_KEY=",
			"NODE_OPTIONS=--require="+interop)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			code = exit.ExitCode()
		case err != nil:
			t.Fatalf("running microlink %s: %v", strings.Join(args, " "), err)
		}
		return o.String(), e.String(), code
	}

	t.Run("the default pretty mode exits 0 and prints the data and the cache state", func(t *testing.T) {
		target := pages + "/cli"
		for i, want := range []string{"MISS", "HIT"} {
			stdout, stderr, code := run(t, target)
			if code != 0 {
				t.Fatalf("call %d: exit %d\nstdout: %s\nstderr: %s", i+1, code, stdout, stderr)
			}
			if !strings.Contains(stdout, "The CLI Page") {
				t.Errorf("call %d: stdout has no title:\n%s", i+1, stdout)
			}
			for _, w := range []string{"SUCCESS", "cache " + want, "uri " + endpoint + "?url=" + url.QueryEscape(target)} {
				if !strings.Contains(stderr, w) {
					t.Errorf("call %d: stderr has no %q:\n%s", i+1, w, stderr)
				}
			}
			// The CLI prints x-fetch-mode with x-fetch-time, x-request-id and,
			// on a hit, the time left from x-timestamp and x-cache-ttl.
			res := []string{`mode (fetch|prerender) \(\d+(\.\d+)?m?s\)`, `id \w+:[0-9a-f-]{36}`}
			if want == "HIT" {
				res = append(res, `cache HIT \(23h 59m`)
			}
			for _, re := range res {
				if !regexp.MustCompile(re).MatchString(stderr) {
					t.Errorf("call %d: stderr does not match %s:\n%s", i+1, re, stderr)
				}
			}
			if strings.Contains(stderr, "NaN") {
				t.Errorf("call %d: the CLI could not read glimpse's timing headers:\n%s", i+1, stderr)
			}
		}
	})

	t.Run("options after & reach glimpse: a PDF", func(t *testing.T) {
		stdout, stderr, code := run(t, pages+"/cli&pdf&meta=false", "--no-pretty")
		var got struct {
			Status string `json:"status"`
			Data   struct {
				PDF struct {
					URL  string `json:"url"`
					Type string `json:"type"`
				} `json:"pdf"`
			} `json:"data"`
		}
		if code != 0 || json.Unmarshal([]byte(stdout), &got) != nil {
			t.Fatalf("exit %d, stdout is not the JSON answer:\n%s\n%s", code, stdout, stderr)
		}
		if got.Status != "success" || got.Data.PDF.Type != "pdf" || !strings.HasPrefix(got.Data.PDF.URL, "http") {
			t.Errorf("the answer has no PDF: %s", stdout)
		}
	})

	t.Run("bare field switches, as Microlink's CLI examples write them, choose the fields", func(t *testing.T) {
		stdout, stderr, code := run(t, pages+"/cli&meta.title&meta.lang", "--no-pretty")
		var got struct {
			Status string         `json:"status"`
			Data   map[string]any `json:"data"`
		}
		if code != 0 || json.Unmarshal([]byte(stdout), &got) != nil {
			t.Fatalf("exit %d, stdout is not the JSON answer:\n%s\n%s", code, stdout, stderr)
		}
		if got.Status != "success" || got.Data["title"] != "The CLI Page" || got.Data["lang"] != "en" {
			t.Errorf("the answer lacks the chosen fields: %s", stdout)
		}
		if _, ok := got.Data["description"]; ok {
			t.Errorf("the answer has a field that was not chosen: %s", stdout)
		}
	})

	t.Run("a refused target exits 1 and names the code and status", func(t *testing.T) {
		stdout, stderr, code := run(t, "http://169.254.169.254/")
		if code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		if !strings.Contains(stdout, "EFORBIDDENURL (400)") || !strings.Contains(stdout, "FAIL") {
			t.Errorf("the CLI does not show the error code and status:\n%s\n%s", stdout, stderr)
		}
	})
}

// clientPages serves the pages the client cases ask glimpse for.
func clientPages(t *testing.T) *e2e.PageServer {
	t.Helper()
	var ps *e2e.PageServer
	slow := func(w http.ResponseWriter, r *http.Request) {
		// Longer than any timeout the cases give, and gone when glimpse hangs up.
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
		e2e.HTML(`<!doctype html><title>Too late</title>`)(w, r)
	}
	status := func(code int, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("content-type", "text/html; charset=utf-8")
			w.WriteHeader(code)
			fmt.Fprint(w, body)
		}
	}
	file := func(ctype string, body []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("content-type", ctype)
			_, _ = w.Write(body)
		}
	}
	// /hits reads ps, which is set once the server is already serving:
	// the channel orders that write before the handler's read.
	started := make(chan struct{})
	ps = e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/article": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("x-page", "article")
			e2e.HTML(clientArticlePage)(w, r)
		},
		"/stamp":     e2e.HTML(`<!doctype html><html lang="en"><title>Stamped</title><p>A page for the timing headers, with some text.</p></html>`),
		"/cli":       e2e.HTML(`<!doctype html><html lang="en"><title>The CLI Page</title><p>A page the command line client asks for.</p></html>`),
		"/viewport":  e2e.HTML(clientViewportPage),
		"/rules":     e2e.HTML(clientRulesPage),
		"/missing":   status(http.StatusNotFound, `<!doctype html><html lang="en"><title>Not here</title><h1>Not here</h1></html>`),
		"/boom":      status(http.StatusInternalServerError, `<!doctype html><html lang="en"><title>Server trouble</title><h1>Server trouble</h1></html>`),
		"/slow":      slow,
		"/slow-once": slow,
		"/echo": func(w http.ResponseWriter, r *http.Request) {
			e2e.HTML(`<!doctype html><html lang="en"><title>echo: `+escapeText(r.Header.Get("x-echo-test"))+`</title></html>`)(w, r)
		},
		"/hop1": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/hop2", http.StatusFound) },
		"/hop2": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/article", http.StatusMovedPermanently)
		},
		"/loop":                    func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) },
		"/img.png":                 file("image/png", clientPNG(120, 63)),
		"/logo.png":                file("image/png", clientPNG(32, 32)),
		"/clip.mp4":                file("video/mp4", []byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom")),
		"/sound.mp3":               file("audio/mpeg", []byte("ID3\x04\x00\x00\x00\x00\x00\x00")),
		"/files/annual-report.pdf": file("application/pdf", []byte(clientPDF)),
		"/files/report.docx":       file("application/vnd.openxmlformats-officedocument.wordprocessingml.document", documenttest.SampleDOCX(t)),
		"/embed": e2e.HTML(`<!doctype html><html lang="en"><title>Embedded</title>
<link rel="alternate" type="application/json+oembed" href="/oembed?url=embed"><p>A page with an oEmbed provider.</p></html>`),
		"/oembed": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("content-type", "application/json")
			html := `<iframe width="` + escapeText(r.URL.Query().Get("maxwidth")) + `" src="https://player.example/e/1"></iframe>` +
				`<script async src="https://player.example/embed.js"></script>`
			_ = json.NewEncoder(w).Encode(map[string]string{"version": "1.0", "type": "video", "html": html})
		},
		"/built": func(w http.ResponseWriter, r *http.Request) {
			http.SetCookie(w, &http.Cookie{Name: "PHPSESSID", Value: "s", Path: "/"})
			e2e.HTML(`<!doctype html><html lang="en"><head><title>Built</title><meta name="generator" content="WordPress 6.4.2">
<link rel="stylesheet" href="/wp-content/themes/t/style.css"></head><body><p>A blog.</p></body></html>`)(w, r)
		},
		"/api.json":       file("application/json", []byte(`{"name":"pikachu","id":25,"types":[{"slot":1,"type":{"name":"electric"}}]}`)),
		"/files/blob.bin": file("application/octet-stream", bytes.Repeat([]byte{0, 1, 2, 3}, 256)),
		"/hits": func(w http.ResponseWriter, r *http.Request) {
			<-started
			n, ok := ps.Hits[r.URL.Query().Get("path")]
			if !ok {
				http.Error(w, "no such route", http.StatusNotFound)
				return
			}
			fmt.Fprint(w, n.Load())
		},
	})
	close(started)
	return ps
}

func escapeText(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	return r.Replace(s)
}

func clientPNG(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		for y := range h {
			img.Set(x, y, color.RGBA{R: uint8(x), G: uint8(y), B: 200, A: 255})
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

const clientArticlePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>The Article Title</title>
<meta name="description" content="What the article says, in one sentence.">
<meta name="author" content="Ada Lovelace">
<meta property="og:site_name" content="The Test Gazette">
<meta property="og:image" content="/img.png">
<meta property="article:published_time" content="2026-01-02T03:04:05Z">
<link rel="icon" type="image/png" href="/logo.png">
</head>
<body><article><h1>The Article Title</h1>
<p>The body of the article, with enough words in it to read like a page that a person wrote for other people.</p>
</article></body></html>`

// clientViewportPage names the viewport it is laid out in. It asks for the
// device's width, as mobile pages do: without that a mobile browser lays a
// page out 980 px wide.
const clientViewportPage = `<!doctype html>
<html lang="en"><head><title>viewport</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body { margin: 0; background: #fff } div { width: 50px; height: 50px; background: #000 }</style>
<script>document.title = innerWidth + 'x' + innerHeight + '@' + devicePixelRatio</script>
</head><body><div></div></body></html>`

const clientRulesPage = `<!doctype html>
<html lang="en">
<head>
<title>Rules Page</title>
<meta property="og:site_name" content="Rule House">
<meta name="twitter:title" content="Tweet Title">
<link rel="icon" href="/logo.png">
<script>window.answer = 42</script>
</head>
<body>
<h1>Rules Headline</h1>
<p class="intro">Hello <b>world</b></p>
<span class="byline">Grace Hopper</span>
<time datetime="2025-05-06T07:08:09Z">May 6</time>
<img class="hero" src="/img.png" alt="hero">
<video src="/clip.mp4"></video>
<audio src="/sound.mp3"></audio>
<a class="mail" href="mailto:ada@example.com">write</a>
<div class="card"><h2>Ada</h2><span class="role">Engineer</span></div>
</body></html>`

// clientPDF is a one-page PDF, small enough to write by hand.
const clientPDF = "%PDF-1.4\n" +
	"1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n" +
	"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n" +
	"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\n" +
	"trailer<</Root 1 0 R>>\n%%EOF\n"
