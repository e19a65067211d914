package clients_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// The MCP endpoint, driven by the official TypeScript SDK at the version
// .ci/clients locks, as an agent's MCP client drives it.

// mcpClientsDir finds the installed MCP SDK, where the Microlink clients
// are.
func mcpClientsDir(t *testing.T) string {
	t.Helper()
	return installedClients(t, "the MCP SDK's files", "node_modules/@modelcontextprotocol/sdk/package.json")
}

// mcpPages are the loopback pages the MCP client reads.
func mcpPages(t *testing.T) *e2e.PageServer {
	picture := func(w, h int, c color.Color) http.HandlerFunc {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				img.Set(x, y, c)
			}
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		return func(rw http.ResponseWriter, r *http.Request) {
			rw.Header().Set("content-type", "image/png")
			_, _ = rw.Write(buf.Bytes())
		}
	}
	return e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/{$}":      e2e.HTML(`<!doctype html><html lang="en"><head><title>Home</title></head><body><p>Home.</p></body></html>`),
		"/second":   e2e.HTML(`<!doctype html><html lang="en"><head><title>Second</title></head><body><p>Second.</p></body></html>`),
		"/article":  e2e.HTML(mcpArticle),
		"/pic.png":  picture(120, 63, color.RGBA{200, 40, 40, 255}),
		"/lazy.png": picture(10, 10, color.RGBA{40, 200, 40, 255}),
		"/logo.png": picture(32, 32, color.RGBA{40, 40, 200, 255}),
	})
}

const mcpArticle = `<!doctype html>
<html lang="en"><head>
<title>A loopback article</title>
<meta name="description" content="What a page served on loopback says about itself.">
<meta property="og:image" content="/pic.png">
<link rel="icon" href="/logo.png">
<meta name="author" content="Ada Lovelace">
<meta property="article:published_time" content="2026-11-20T10:04:05Z">
</head><body>
<nav><a href="/">Home</a> <a href="/second">Menu entry</a></nav>
<main>
<article>
<h1>A loopback article</h1>
<p>The first paragraph of the article is long enough to be the main content that the extractor keeps, about pages served on loopback and the testing of services that read them for agents.</p>
<p>The second paragraph links to <a href="/second">the second page</a>, to <a href="https://example.org/elsewhere">another site</a> and to <a href="mailto:ada@example.org">a mailbox</a>, which is no web page.</p>
<img src="/pic.png" alt="a red picture">
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="/lazy.png" alt="lazy">
<img src="pic.png" alt="the same picture again">
<p class="price">$1,299.00</p>
</article>
<div class="aside"><p>An aside, <b>bold</b>.</p></div>
</main>
<footer><img src="/logo.png" alt=""> The footer.</footer>
</body></html>`

func TestMCPClient(t *testing.T) {
	dir := mcpClientsDir(t)
	node := nodeBinary(t)
	app := e2e.Launch(t, e2e.Logger(), `
anonymous: {name: test, limit: 1000000, window: 1h}
plans:
  - {name: tiny, limit: 1, window: 1h}
keys:
  - {key: k-tiny, plan: tiny}
  - {key: k-tiny-2, plan: tiny}
`, nil)
	ps := mcpPages(t)
	runClientScript(t, node, dir, filepath.Join("testdata", "mcp", "client.mjs"), 120*time.Second,
		"GLIMPSE_MCP_URL="+app.URL()+"/mcp", "GLIMPSE_PAGES="+ps.URL, "GLIMPSE_CLOSED_URL="+refusingURL(t))
}

func TestMCPCanBeSwitchedOff(t *testing.T) {
	for _, c := range []struct {
		env    string
		status int
	}{{"off", http.StatusNotFound}, {"on", http.StatusOK}} {
		t.Run("GLIMPSE_MCP="+c.env, func(t *testing.T) {
			app := e2e.StartApp(t, func(cfg *orchestrator.Config) {
				env := map[string]string{"GLIMPSE_MCP": c.env}
				loaded, err := orchestrator.LoadConfig(nil, func(k string) string { return env[k] }, io.Discard)
				if err != nil {
					t.Fatal(err)
				}
				cfg.MCP = loaded.MCP
			})
			body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
			req, _ := http.NewRequest(http.MethodPost, app.URL()+"/mcp", strings.NewReader(body))
			req.Header.Set("content-type", "application/json")
			req.Header.Set("accept", "application/json, text/event-stream")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			got, _ := io.ReadAll(res.Body)
			if res.StatusCode != c.status {
				t.Fatalf("POST /mcp answered %d, want %d: %s", res.StatusCode, c.status, got)
			}
			if c.status == http.StatusNotFound && !strings.Contains(string(got), `"ENOTFOUND"`) {
				t.Errorf("a switched-off endpoint answers without the envelope: %s", got)
			}
			if c.status != http.StatusOK {
				return
			}
			// A browser opening the endpoint learns what it is for.
			res, err = http.Get(app.URL() + "/mcp")
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			got, _ = io.ReadAll(res.Body)
			if res.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(string(got), `"EMETHOD"`) || res.Header.Get("allow") != "POST" {
				t.Errorf("GET /mcp answered %d (allow %q): %s; want EMETHOD naming POST", res.StatusCode, res.Header.Get("allow"), got)
			}
		})
	}
}

func TestTheMCPSwitchReadsOnAndOff(t *testing.T) {
	for _, c := range []struct {
		value string
		want  bool
		err   bool
	}{{"", true, false}, {"off", false, false}, {"OFF", false, false}, {"false", false, false}, {"on", true, false}, {"true", true, false}, {"maybe", false, true}} {
		t.Run(fmt.Sprintf("GLIMPSE_MCP=%q", c.value), func(t *testing.T) {
			cfg, err := orchestrator.LoadConfig(nil, func(k string) string {
				if k == "GLIMPSE_MCP" {
					return c.value
				}
				return ""
			}, io.Discard)
			if c.err {
				if err == nil || !strings.Contains(err.Error(), "GLIMPSE_MCP") {
					t.Fatalf("err = %v, want one naming GLIMPSE_MCP", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.MCP != c.want {
				t.Errorf("MCP = %v, want %v", cfg.MCP, c.want)
			}
		})
	}
}
