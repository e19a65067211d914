package chaos_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	goruntime "runtime"
	rtmetrics "runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
	"github.com/glimpse/glimpse/sidecar"
	"github.com/glimpse/glimpse/sidecar/logging"
	"github.com/glimpse/glimpse/storage/miniotest"
)

// These tests break things on purpose: hostile pages, a browser or a whole
// sidecar killed under load, storage going away, the service shut down
// mid-request, more callers than browsers, and a long mixed run with faults.
// Each one checks that every caller gets a clear answer and that nothing is
// left behind in the browser, the process table or this process.

// ---------------------------------------------------------------------------
// Harness additions

// externalSidecar is a whole sidecar run in this process on its own port,
// as the sidecar binary runs in a cluster.
type externalSidecar struct {
	addr   string
	srv    *sidecar.Server
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

// startSidecar runs a sidecar on addr ("127.0.0.1:0" for any port) that may
// reach loopback targets, and waits until its browser is ready.
// externalSidecarToken is the secret the external sidecars of these tests
// share with the orchestrators that lease them, as in a cluster.
var externalSidecarToken = sidecar.NewToken()

func startSidecar(t *testing.T, addr string, chromeFlags ...string) *externalSidecar {
	t.Helper()
	return startSidecarWith(t, addr, nil, chromeFlags...)
}

// startSidecarWith is startSidecar with its configuration changed by mutate.
func startSidecarWith(t *testing.T, addr string, mutate func(*sidecar.Config), chromeFlags ...string) *externalSidecar {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test with a real Chromium; skipped with -short")
	}
	var ln net.Listener
	var err error
	for range 50 { // the address may be a moment from free after a stop
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("listening for a sidecar on %s: %v", addr, err)
	}
	cfg := sidecar.DefaultConfig()
	cfg.Addr = ln.Addr().String()
	cfg.ExtraFlags = chromeFlags
	cfg.Token = externalSidecarToken
	if mutate != nil {
		mutate(&cfg)
	}
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})).With("sidecar", cfg.Addr)
	srv, err := sidecar.NewServer(sidecar.RunConfig{
		Sidecar:      cfg,
		AllowTargets: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		Listener:     ln,
	})
	if err != nil {
		ln.Close()
		t.Fatalf("preparing a sidecar: %v (Chromium comes from Debian's chromium package: apt-get install chromium)", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &externalSidecar{addr: cfg.Addr, srv: srv, cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- srv.Run(ctx) }()
	t.Cleanup(func() { s.stop(t) })
	deadline := time.Now().Add(60 * time.Second)
	for srv.Sidecar().Health().Status != sidecar.StatusOK {
		if time.Now().After(deadline) {
			t.Fatalf("the sidecar on %s has no ready browser after 60s: %+v", s.addr, srv.Sidecar().Health())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s
}

// stop is how a sidecar dies in these tests: its listener and connections
// close and its Chromium is killed, as when its pod is killed.
func (s *externalSidecar) stop(t *testing.T) {
	s.once.Do(func() {
		s.cancel()
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			t.Errorf("the sidecar on %s did not stop within 30s", s.addr)
		}
	})
}

// procInfo is one process of a Chromium generation.
type procInfo struct {
	pid     int
	zombie  bool
	cmdline string
}

// generationProcesses lists the processes of the Chromium whose browser
// process is pid: its process group, and any process whose command line
// names its profile directory (crash handlers leave the group).
func generationProcesses(pid int, profileDir string) []procInfo {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []procInfo
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 3 {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		line := string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))
		if f[2] == strconv.Itoa(pid) || (profileDir != "" && strings.Contains(line, profileDir)) {
			out = append(out, procInfo{pid: n, zombie: f[0] == "Z" || f[0] == "X", cmdline: line})
		}
	}
	return out
}

// profileDirOf reads the --user-data-dir of a running Chromium.
func profileDirOf(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Fatalf("reading Chromium's command line: %v", err)
	}
	for _, arg := range strings.Split(string(b), "\x00") {
		if dir, ok := strings.CutPrefix(arg, "--user-data-dir="); ok {
			return dir
		}
	}
	t.Fatalf("Chromium (pid %d) runs without --user-data-dir", pid)
	return ""
}

// kinds sums live processes by their Chromium --type (the browser has none).
func kinds(ps []procInfo) map[string]int {
	out := map[string]int{}
	for _, p := range ps {
		if p.zombie {
			out["zombie"]++
			continue
		}
		kind := "browser"
		for _, f := range strings.Fields(p.cmdline) {
			if v, ok := strings.CutPrefix(f, "--type="); ok {
				kind = v
			}
			if v, ok := strings.CutPrefix(f, "--utility-sub-type="); ok {
				kind += ":" + v
			}
		}
		out[kind]++
	}
	return out
}

// liveCount counts the processes that are not zombies.
func liveCount(ps []procInfo) int {
	n := 0
	for _, p := range ps {
		if !p.zombie {
			n++
		}
	}
	return n
}

// openFDs counts this process's open file descriptors.
func openFDs() int {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(es)
}

// heapSampler records the largest heap seen while it runs.
type heapSampler struct {
	stop chan struct{}
	done chan struct{}
	peak atomic.Uint64
}

func heapNow() uint64 {
	s := []rtmetrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	rtmetrics.Read(s)
	return s[0].Value.Uint64()
}

func sampleHeap() *heapSampler {
	h := &heapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	h.peak.Store(heapNow())
	go func() {
		defer close(h.done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-t.C:
				if v := heapNow(); v > h.peak.Load() {
					h.peak.Store(v)
				}
			}
		}
	}()
	return h
}

func (h *heapSampler) end() uint64 {
	close(h.stop)
	<-h.done
	return h.peak.Load()
}

// slowPage answers an article after d, so renders are in flight when a
// test strikes.
func slowPage(d time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
		e2e.HTML(e2e.ArticlePage)(w, r)
	}
}

// hangPage never answers.
func hangPage(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(2 * time.Minute):
	}
}

// ---------------------------------------------------------------------------
// Hostile pages

func TestHostilePages(t *testing.T) {
	// The renderer's JavaScript heap is capped (an operator does the same
	// with GLIMPSE_CHROME_FLAGS) so that a page eating memory kills its
	// renderer in a second instead of after gigabytes.
	sc := startSidecar(t, "127.0.0.1:0", "--js-flags=--max-old-space-size=512")
	app := e2e.StartApp(t, func(c *orchestrator.Config) {
		c.Sidecars, c.SidecarToken = sc.addr, externalSidecarToken
		c.SidecarConcurrency = 4
	})
	pages0, contexts0 := app.Settled(-1, -1)
	procs0 := liveCount(generationProcesses(sc.srv.Sidecar().BrowserPID(), ""))
	articleServer := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/": e2e.HTML(e2e.ArticlePage)})

	// afterwards checks what every hostile page must leave: a browser that
	// still serves a plain page, and no page or context left open.
	afterwards := func(t *testing.T) {
		t.Helper()
		app := e2e.Wrap(t, app.App)
		if a := app.TryGet(articleServer.URL+"/?after="+url.QueryEscape(t.Name()), "prerender=true&force=true"); a.HTTP != 200 {
			t.Errorf("after the hostile page a plain page fails: %v", a)
		}
		if pages, contexts := app.Settled(pages0, contexts0); pages != pages0 || contexts != contexts0 {
			t.Errorf("after the hostile page the browser has %d pages and %d contexts; it started with %d and %d", pages, contexts, pages0, contexts0)
		}
	}

	t.Run("dialogs are dismissed and the page is read", func(t *testing.T) {
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/": e2e.HTML(`<!doctype html><html lang="en"><head>
<title>waiting for dialogs</title>
<script>
alert('hello');
const c = confirm('Proceed?');
const p = prompt('Your name?', 'nobody');
window.addEventListener('beforeunload', e => { e.preventDefault(); e.returnValue = 'Stay?'; return 'Stay?'; });
document.title = 'Dialogs: confirm=' + c + ' prompt=' + p;
</script>
<meta name="description" content="A page that asks for everything."></head><body>
<script>alert('again');</script><p>Body.</p></body></html>`)})
		a := app.TryGet(ps.URL+"/", "prerender=true&timeout=15s")
		if a.HTTP != 200 {
			t.Fatalf("a page with dialogs: %v", a)
		}
		if got := a.Field("title"); got != "Dialogs: confirm=false prompt=null" {
			t.Errorf("title = %v; every dialog must be dismissed (confirm false, prompt null)", got)
		}
		if a.Took > 10*time.Second {
			t.Errorf("the page with dialogs took %s; dismissing them must not wait for a time-out", a.Took)
		}
		afterwards(t)
	})

	t.Run("dialogs opened after load are dismissed too", func(t *testing.T) {
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/": e2e.HTML(`<!doctype html><html lang="en"><head><title>Late dialogs</title>
<script>addEventListener("load", () => setTimeout(() => { alert("late"); document.title = "Dismissed: " + confirm("again?"); }, 50));</script>
</head><body><p>Body.</p></body></html>`)})
		for _, extra := range []string{"prerender=true&force=true", "prerender=true&force=true&scripts=confirm(1)", "prerender=true&force=true&screenshot=true&meta=false"} {
			a := app.TryGet(ps.URL+"/", extra+"&timeout=20s")
			if a.HTTP != 200 {
				t.Errorf("%s answered %v; want the page", extra, a)
			}
			if a.Took > 4*time.Second {
				t.Errorf("%s answered after %s; a dialog must be dismissed at once, whenever it opens", extra, a.Took)
			}
		}
		afterwards(t)
	})

	t.Run("a navigation right after load is followed, not a 500", func(t *testing.T) {
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
			"/script":  e2e.HTML(`<!doctype html><html lang="en"><head><title>First</title><script>addEventListener("load", () => { location.href = "/second"; });</script></head><body><p>One.</p></body></html>`),
			"/refresh": e2e.HTML(`<!doctype html><html lang="en"><head><title>First</title><meta http-equiv="refresh" content="0;url=/second"></head><body><p>One.</p></body></html>`),
			"/second":  slowPage(100 * time.Millisecond),
		})
		for _, path := range []string{"/script", "/refresh"} {
			a := app.TryGet(ps.URL+path, "prerender=true&force=true")
			if a.Err != nil || a.HTTP >= 500 {
				t.Errorf("%s, which navigates on load, answered %v; want the page read", path, a)
			}
		}
		afterwards(t)
	})

	t.Run("a renderer that crashes after load fails the request alone, as the page's failure", func(t *testing.T) {
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/": e2e.HTML(e2e.ArticlePage)})
		gen := sc.srv.Sidecar().Generation()
		hog := url.QueryEscape("(() => { const keep = []; for (;;) keep.push(new Array(1 << 20).fill(keep.length)); })()")
		a := app.TryGet(ps.URL+"/?crash-after-load", "prerender=true&force=true&timeout=30s&scripts="+hog)
		if a.Err != nil || a.HTTP != 424 || a.Code != "EFETCH" || !strings.Contains(strings.ToLower(a.Message), "crash") {
			t.Errorf("a renderer that dies running scripts answered %v; want 424 EFETCH saying the page crashed", a)
		}
		if g := sc.srv.Sidecar().Generation(); g != gen {
			t.Errorf("a crashed renderer restarted the whole browser (generation %d → %d)", gen, g)
		}
		afterwards(t)
	})

	t.Run("a page nested deeper than the HTML parser allows is read, with and without a browser", func(t *testing.T) {
		deep := `<!doctype html><html lang="en"><head><title>Deep</title>
<meta name="description" content="Nested far too deep."></head><body>` +
			strings.Repeat("<div>", 5000) + "the bottom" + strings.Repeat("</div>", 5000) + `</body></html>`
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/": e2e.HTML(deep)})
		for _, mode := range []string{"prerender=true", "prerender=false"} {
			a := app.TryGet(ps.URL+"/", mode+"&force=true")
			if a.HTTP != 200 || a.Field("title") != "Deep" {
				t.Errorf("a page 5000 elements deep with %s answered %v; want its title", mode, a)
			}
		}
		afterwards(t)
	})

	t.Run("embed never sends the caller to an address the page names", func(t *testing.T) {
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/": e2e.HTML(`<!doctype html><html lang="en"><head><title>Pointing inward</title>
<meta property="og:image" content="http://169.254.169.254/latest/meta-data/iam/security-credentials/">
<link rel="icon" href="http://10.0.0.1/favicon.ico"></head><body><p>Hello.</p></body></html>`)})
		for _, embed := range []string{"image.url", "logo.url"} {
			a := app.TryGet(ps.URL+"/", "ping=false&force=true&embed="+embed)
			if a.Err != nil || a.HTTP/100 == 3 || a.Header.Get("location") != "" {
				t.Fatalf("embed=%s answered %v with location %q; glimpse must never redirect a caller to a page's address", embed, a, a.Header.Get("location"))
			}
			if a.HTTP != 400 || a.Code != "EFORBIDDENURL" {
				t.Errorf("embed=%s of a private address answered %v; want 400 EFORBIDDENURL", embed, a)
			}
		}
		gone := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/": e2e.HTML(`<!doctype html><html lang="en"><head><title>Broken image</title>
<meta property="og:image" content="/missing.png"></head><body><p>Hello.</p></body></html>`),
			"/missing.png": http.NotFound})
		if a := app.TryGet(gone.URL+"/", "ping=false&force=true&embed=image.url"); a.HTTP != 424 || a.Code != "EFETCH" {
			t.Errorf("embed=image.url of an image that answers 404 answered %v; want 424 EFETCH", a)
		}
		afterwards(t)
	})

	t.Run("nested data rules stop at their bounds within the timeout", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(`<!doctype html><html lang="en"><head><title>Many</title></head><body>`)
		for range 30 {
			b.WriteString("<section>")
			for range 30 {
				b.WriteString("<p>" + strings.Repeat("<span>word word word</span>", 30) + "</p>")
			}
			b.WriteString("</section>")
		}
		b.WriteString("</body></html>")
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/": e2e.HTML(b.String())})
		rules := "data.a.selectorAll=*&data.a.attr.b.selectorAll=*&data.a.attr.b.attr.c.selectorAll=*" +
			"&data.a.attr.b.attr.c.attr.d.selectorAll=*&data.a.attr.b.attr.c.attr.d.attr=html"
		// The bounds count elements and visits, not time, and reaching
		// them is CPU work: alone it fits well within 5s, but under -race
		// on a machine loaded many times over it took past 5s and 15s,
		// and the request's deadline ended the rules first. Both ends are
		// clear answers in time; which bound stops which rule, and with
		// what message, is held without a browser or a clock by
		// TestDataRulesStopAtTheirBoundsAndSaySo in orchestrator/answer.
		const timeout = 15 * time.Second
		a := app.TryGet(ps.URL+"/", rules+"&meta=false&timeout=15s&force=true")
		switch {
		case a.HTTP == 400 && a.Code == "EINVALQUERY" && strings.Contains(a.Message, "`data.a`"):
			t.Logf("the nested rules stopped at their bounds after %s", a.Took.Round(time.Millisecond))
		case a.HTTP == 504 && a.Code == "ETIMEOUT" && a.Took >= timeout:
			t.Logf("the machine was too busy to reach the bounds within %s; the deadline ended the rules", timeout)
		default:
			t.Errorf("nested rules over a page that multiplies them answered %v; want 400 EINVALQUERY naming `data.a`, or ETIMEOUT at the deadline", a)
		}
		if a.Took > timeout+3*time.Second {
			t.Errorf("the nested rules answered after %s; their timeout was %s", a.Took, timeout)
		}
		afterwards(t)
	})

	t.Run("popups and new tabs are closed with the request", func(t *testing.T) {
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
			"/": e2e.HTML(`<!doctype html><html><head><title>The opener</title></head><body>
<a id=tab href="/popup?via=link" target="_blank">new tab</a>
<script>
window.open('/popup?via=open');
window.open('/popup?via=named', 'named', 'width=300,height=300');
document.getElementById('tab').click();
</script></body></html>`),
			"/popup": slowPage(300 * time.Millisecond),
		})
		a := app.TryGet(ps.URL+"/", "prerender=true")
		if a.HTTP != 200 || a.Field("title") != "The opener" {
			t.Fatalf("a page that opens popups: %v (want the opener's title)", a)
		}
		afterwards(t)
	})

	t.Run("an endless script ends at the deadline and the browser serves others meanwhile", func(t *testing.T) {
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
			"/loop": e2e.HTML(`<!doctype html><html><head><title>Spinning</title></head><body><script>for (;;) {}</script></body></html>`),
		})
		loop := make(chan e2e.Reply, 1)
		go func() { loop <- app.TryGet(ps.URL+"/loop", "prerender=true&timeout=4s") }()
		time.Sleep(700 * time.Millisecond) // the loop has started
		other := app.TryGet(articleServer.URL+"/?during=loop", "prerender=true&force=true&timeout=20s")
		if other.HTTP != 200 {
			t.Errorf("a plain page rendered while another page spins fails: %v", other)
		}
		a := <-loop
		switch {
		case a.Err != nil:
			t.Fatalf("the spinning page got no answer: %v", a)
		case a.HTTP == 200 && a.Field("title") == "Spinning":
		case a.Code == "ETIMEOUT" && a.HTTP == 504:
		default:
			t.Fatalf("the spinning page answered %v; want its metadata or ETIMEOUT", a)
		}
		if a.Took > 12*time.Second {
			t.Errorf("the spinning page answered after %s; its timeout was 4s", a.Took)
		}
		afterwards(t)
		if !e2e.Eventually(15*time.Second, func() bool {
			return liveCount(generationProcesses(sc.srv.Sidecar().BrowserPID(), "")) <= procs0
		}) {
			t.Errorf("after the spinning page the browser runs %d processes; it started with %d (is its renderer still alive?)",
				liveCount(generationProcesses(sc.srv.Sidecar().BrowserPID(), "")), procs0)
		}
	})

	t.Run("a page that eats memory until its renderer dies fails alone with a clear error", func(t *testing.T) {
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
			"/hog": e2e.HTML(`<!doctype html><html><head><title>Hungry</title></head><body><script>
const keep = [];
for (;;) { keep.push(new Array(1 << 20).fill(keep.length)); }
</script></body></html>`),
		})
		gen := sc.srv.Sidecar().Generation()
		other := make(chan e2e.Reply, 1)
		go func() {
			time.Sleep(300 * time.Millisecond)
			other <- app.TryGet(articleServer.URL+"/?during=hog", "prerender=true&force=true&timeout=30s")
		}()
		a := app.TryGet(ps.URL+"/hog", "prerender=true&timeout=30s")
		if !a.ClearFailure() || a.Code == "EFATAL" {
			t.Fatalf("a page whose renderer runs out of memory answered %v; want a clear error about the page", a)
		}
		if !strings.Contains(strings.ToLower(a.Message), "crash") {
			t.Errorf("the message %q does not say that the page crashed", a.Message)
		}
		if o := <-other; o.HTTP != 200 {
			t.Errorf("a plain page rendered alongside the crashing one failed: %v", o)
		}
		if g := sc.srv.Sidecar().Generation(); g != gen {
			t.Errorf("a crashed renderer restarted the whole browser (generation %d → %d)", gen, g)
		}
		afterwards(t)
	})

	// modes are the two ways a page is read: a plain fetch first (the
	// default, prerender=auto) and always in the browser.
	modes := []struct{ name, query string }{
		{"with a plain fetch first", ""},
		{"in the browser", "prerender=true"},
	}
	with := func(mode, extra string) string {
		if mode == "" {
			return extra
		}
		if extra == "" {
			return mode
		}
		return mode + "&" + extra
	}

	t.Run("a download is described as a file and writes no file", func(t *testing.T) {
		const name = "glimpse-chaos-download-7f3a.zip"
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
			"/file": func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("content-type", "application/zip")
				w.Header().Set("content-disposition", `attachment; filename="`+name+`"`)
				w.Write(append([]byte("PK\x03\x04"), bytes.Repeat([]byte{0}, 64<<10)...))
			},
		})
		profile := profileDirOf(t, sc.srv.Sidecar().BrowserPID())
		for _, m := range modes {
			t.Run(m.name, func(t *testing.T) {
				a := app.TryGet(ps.URL+"/file?"+m.name, m.query)
				if a.Err != nil || a.HTTP != 200 || a.Field("title") != name {
					t.Fatalf("a download answered %v; want 200 with its file name as the title", a)
				}
			})
		}
		time.Sleep(500 * time.Millisecond) // a download in progress would have its file by now
		home, _ := os.UserHomeDir()
		cwd, _ := os.Getwd()
		for _, dir := range []string{profile, filepath.Join(home, "Downloads"), cwd, os.TempDir()} {
			_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return nil
				}
				if d.IsDir() && p != dir && (dir == os.TempDir() || dir == cwd) {
					return fs.SkipDir // only the top level of shared directories
				}
				if strings.Contains(d.Name(), "glimpse-chaos-download") || strings.HasSuffix(d.Name(), ".crdownload") {
					t.Errorf("the download was written to %s", p)
				}
				return nil
			})
		}
		afterwards(t)
	})

	t.Run("a 50 MB page is read up to the limit without the orchestrator holding it", func(t *testing.T) {
		const size = 50 << 20
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
			"/big": func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("content-type", "text/html; charset=utf-8")
				io.WriteString(w, `<!doctype html><html lang="en"><head><title>A very long page</title>`+
					`<meta name="description" content="Fifty megabytes of text."></head><body>`)
				line := strings.Repeat("All work and no play makes a page very long. ", 20)
				chunk := strings.Repeat("<p>"+line+"</p>\n", 64)
				for n := 0; n < size; n += len(chunk) {
					if _, err := io.WriteString(w, chunk); err != nil {
						return
					}
				}
				io.WriteString(w, "</body></html>")
			},
		})
		for _, m := range modes {
			t.Run(m.name, func(t *testing.T) {
				goruntime.GC()
				base := heapNow()
				h := sampleHeap()
				a := app.TryGet(ps.URL+"/big?"+m.name, with(m.query, "timeout=20s"))
				peak := h.end()
				switch {
				case a.HTTP == 200:
					if got := a.Field("title"); got != "A very long page" {
						t.Errorf("title = %v", got)
					}
					if got := a.Field("description"); got != "Fifty megabytes of text." {
						t.Errorf("description = %v", got)
					}
				case a.ClearFailure() && a.Code != "EFATAL":
					t.Logf("the 50 MB page was refused: %v", a)
				default:
					t.Fatalf("a 50 MB page answered %v; want its metadata or a clear error", a)
				}
				grew := int64(peak) - int64(base)
				t.Logf("50 MB page: %d (%s) in %s; the orchestrator's heap grew by at most %d MB",
					a.HTTP, a.Header.Get("x-fetch-mode"), a.Took.Round(time.Millisecond), grew>>20)
				if grew > 200<<20 {
					t.Errorf("reading a 50 MB page grew the orchestrator's heap by %d MB; its document limits should bound it well below that", grew>>20)
				}
			})
		}
		afterwards(t)
	})

	t.Run("a document of a million nodes is read up to the limit", func(t *testing.T) {
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
			"/nodes": e2e.HTML(`<!doctype html><html lang="en"><head><title>A million nodes</title>
<meta name="description" content="Built by a script."></head><body><div id=nodes></div><script>
const f = document.createDocumentFragment();
for (let i = 0; i < 1000000; i++) { const s = document.createElement('span'); s.className = 'n'; f.appendChild(s); }
document.getElementById('nodes').appendChild(f);
</script></body></html>`),
		})
		goruntime.GC()
		base := heapNow()
		h := sampleHeap()
		a := app.TryGet(ps.URL+"/nodes", "prerender=true&timeout=20s")
		peak := h.end()
		switch {
		case a.HTTP == 200:
			if got := a.Field("title"); got != "A million nodes" {
				t.Errorf("title = %v", got)
			}
		case a.ClearFailure() && a.Code != "EFATAL":
			t.Logf("the million-node page was refused: %v", a)
		default:
			t.Fatalf("a page of a million nodes answered %v; want its metadata or a clear error", a)
		}
		grew := int64(peak) - int64(base)
		t.Logf("million nodes: %d in %s; the orchestrator's heap grew by at most %d MB", a.HTTP, a.Took.Round(time.Millisecond), grew>>20)
		if grew > 200<<20 {
			t.Errorf("reading a page of a million nodes grew the orchestrator's heap by %d MB", grew>>20)
		}
		afterwards(t)
	})

	t.Run("a subresource that never answers costs the load budget, not the answer", func(t *testing.T) {
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
			"/style": e2e.HTML(`<!doctype html><html lang="en"><head><title>Waiting on a stylesheet</title>
<meta name="description" content="Its style never arrives.">
<link rel="stylesheet" href="/never.css"></head>
<body><p>Text.</p><script src="/never.js" async></script></body></html>`),
			"/image": e2e.HTML(`<!doctype html><html lang="en"><head><title>Waiting on an image</title>
<meta name="description" content="Its image never arrives."></head>
<body><p>Text.</p><img src="/never.png" width=600 height=400></body></html>`),
			"/never.css": hangPage, "/never.png": hangPage, "/never.js": hangPage,
		})
		cases := []struct{ name, path, title, description string }{
			{"a stylesheet and a script", "/style", "Waiting on a stylesheet", "Its style never arrives."},
			// The image both holds the load event and is the page's image
			// candidate, so it is waited for twice: by the load and by the probe.
			{"an image that is also the page's image", "/image", "Waiting on an image", "Its image never arrives."},
		}
		const timeout = 6 * time.Second
		for _, c := range cases {
			for _, m := range modes {
				t.Run(c.name+" "+m.name, func(t *testing.T) {
					a := app.TryGet(ps.URL+c.path+"?"+url.QueryEscape(m.name), with(m.query, "timeout=6s"))
					if a.HTTP != 200 {
						t.Fatalf("a page whose %s never answers got %v; want its metadata within the %s timeout "+
							"(the page's load budget is 60%% of it, and what comes after must fit in the rest)", c.name, a, timeout)
					}
					if a.Field("title") != c.title || a.Field("description") != c.description {
						t.Errorf("metadata = %s", a.Data)
					}
					if a.Has("image") && a.Field("image") != nil {
						t.Errorf("image = %v; an image that never arrives is no image", a.Field("image"))
					}
					if a.Took > timeout+2*time.Second {
						t.Errorf("the answer took %s with a %s timeout", a.Took, timeout)
					}
				})
			}
		}
		afterwards(t)
	})

	t.Run("endless redirects that set cookies end with EMAXREDIRECTS and the cookies die with the request", func(t *testing.T) {
		var hops atomic.Int64
		mux := http.NewServeMux()
		mux.HandleFunc("/loop/", func(w http.ResponseWriter, r *http.Request) {
			n := hops.Add(1)
			http.SetCookie(w, &http.Cookie{Name: fmt.Sprintf("hop%d", n%30), Value: strings.Repeat("x", 200), Path: "/"})
			http.Redirect(w, r, fmt.Sprintf("/loop/%d", n), http.StatusFound)
		})
		mux.HandleFunc("/cookies", func(w http.ResponseWriter, r *http.Request) {
			title := "no cookies"
			if c := r.Header.Get("Cookie"); c != "" {
				title = "cookies: " + c[:min(len(c), 40)]
			}
			e2e.HTML(`<!doctype html><html><head><title>`+title+`</title></head><body></body></html>`)(w, r)
		})
		srv := e2e.NewMuxServer(t, mux)
		for _, m := range modes {
			t.Run(m.name, func(t *testing.T) {
				hops.Store(0)
				a := app.TryGet(srv.URL+"/loop/0?"+url.QueryEscape(m.name), with(m.query, "timeout=15s"))
				if a.HTTP != 400 || a.Code != "EMAXREDIRECTS" {
					t.Fatalf("endless redirects answered %v; want 400 EMAXREDIRECTS", a)
				}
				if n := hops.Load(); n > 30 {
					t.Errorf("%d hops were followed before giving up", n)
				}
				b := app.TryGet(srv.URL+"/cookies", with(m.query, "force=true"))
				if b.HTTP != 200 || b.Field("title") != "no cookies" {
					t.Errorf("the next request to the same site got %v; cookies of another request must not reach it", b)
				}
			})
		}
		afterwards(t)
	})

	t.Run("pages that lie about their type or charset still give the right text", func(t *testing.T) {
		utf16le := func(s string) []byte {
			out := []byte{0xff, 0xfe}
			for _, u := range utf16.Encode([]rune(s)) {
				out = append(out, byte(u), byte(u>>8))
			}
			return out
		}
		cases := []struct {
			name, contentType string
			body              []byte
			want              string
		}{
			{"Latin-1 declared only in a meta tag", "text/html",
				[]byte("<!doctype html><html><head><meta charset=\"iso-8859-1\"><title>Caf\xe9 cr\xe8me br\xfbl\xe9e</title></head><body></body></html>"),
				"Café crème brûlée"},
			{"Shift_JIS declared only by http-equiv", "text/html",
				[]byte("<!doctype html><html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\"><title>\x93\xfa\x96\x7b\x8c\xea</title></head><body></body></html>"),
				"日本語"},
			{"UTF-16 with a byte order mark served as Latin-1", "text/html; charset=iso-8859-1",
				utf16le("<!doctype html><html><head><title>Grüße aus Köln</title></head><body></body></html>"),
				"Grüße aus Köln"},
			{"UTF-8 with a byte order mark served as Shift_JIS", "text/html; charset=shift_jis",
				append([]byte("\xef\xbb\xbf"), "<!doctype html><html><head><title>Ünïcödé façade</title></head><body></body></html>"...),
				"Ünïcödé façade"},
			{"HTML served without any content type", "",
				[]byte("<!doctype html><html><head><meta charset=\"utf-8\"><title>Sniffed – not declared</title></head><body></body></html>"),
				"Sniffed – not declared"},
		}
		for i, c := range cases {
			ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/": func(w http.ResponseWriter, r *http.Request) {
				if c.contentType == "" {
					w.Header()["Content-Type"] = nil // no sniffing on this side either
				} else {
					w.Header().Set("content-type", c.contentType)
				}
				w.Write(c.body)
			}})
			for _, m := range modes {
				t.Run(c.name+" "+m.name, func(t *testing.T) {
					a := app.TryGet(fmt.Sprintf("%s/?case=%d", ps.URL, i), m.query)
					if a.HTTP != 200 {
						t.Fatalf("%v", a)
					}
					if got := a.Field("title"); got != c.want {
						t.Errorf("title = %q, want %q (%s)", got, c.want, a.Header.Get("x-fetch-mode"))
					}
				})
			}
		}
		afterwards(t)
	})
}

// ---------------------------------------------------------------------------
// Failing parts

func TestChromiumKilledDuringConcurrentRequests(t *testing.T) {
	app := e2e.StartApp(t, nil)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/slow": slowPage(300 * time.Millisecond)})
	pages0, contexts0 := app.Settled(-1, -1)
	oldPID := app.Sidecar.BrowserPID()
	oldGen := app.Sidecar.Generation()
	oldProfile := profileDirOf(t, oldPID)
	fresh := liveCount(generationProcesses(oldPID, oldProfile))

	t.Logf("a fresh browser runs %d processes: %v", fresh, kinds(generationProcesses(oldPID, oldProfile)))

	const n = 20
	replies := make(chan e2e.Reply, n)
	for i := range n {
		go func() { replies <- app.TryGet(fmt.Sprintf("%s/slow?i=%d", ps.URL, i), "prerender=true&timeout=30s") }()
	}
	if !e2e.Eventually(20*time.Second, func() bool { return ps.Hits["/slow"].Load() >= 3 }) {
		t.Fatal("the requests never reached the target")
	}
	if err := syscall.Kill(oldPID, syscall.SIGKILL); err != nil {
		t.Fatalf("killing Chromium: %v", err)
	}
	killed := time.Now()
	healthyAfter := make(chan time.Duration, 1)
	go func() {
		for time.Since(killed) < time.Minute {
			if app.Sidecar.Generation() > oldGen && app.Sidecar.Health().Status == sidecar.StatusOK {
				healthyAfter <- time.Since(killed)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		healthyAfter <- -1
	}()

	var ok, failed int
	for range n {
		select {
		case r := <-replies:
			switch {
			case r.HTTP == 200:
				ok++
			case r.ClearFailure():
				failed++
				t.Logf("a request in flight failed clearly: %v", r)
			default:
				t.Errorf("a request in flight got %v; want success, a clear 5xx or a crashed page's 424", r)
			}
		case <-time.After(90 * time.Second):
			t.Fatal("a request in flight while Chromium died never answered")
		}
	}
	t.Logf("Chromium killed under %d requests: %d succeeded, %d failed clearly", n, ok, failed)

	switch d := <-healthyAfter; {
	case d < 0:
		t.Fatalf("the sidecar has no healthy new browser a minute after Chromium was killed: %+v", app.Sidecar.Health())
	case d > 15*time.Second:
		t.Errorf("the sidecar took %s to be healthy again after Chromium was killed", d.Round(time.Millisecond))
	default:
		t.Logf("the sidecar was healthy again %s after the kill", d.Round(time.Millisecond))
	}
	if !e2e.Eventually(10*time.Second, func() bool { return len(generationProcesses(oldPID, oldProfile)) == 0 }) {
		t.Errorf("processes of the killed generation remain: %+v", generationProcesses(oldPID, oldProfile))
	}
	if _, err := os.Stat(oldProfile); !os.IsNotExist(err) {
		t.Errorf("the killed generation's profile directory %s is still there (%v)", oldProfile, err)
	}
	if a := app.TryGet(ps.URL+"/slow?after=kill", "prerender=true"); a.HTTP != 200 {
		t.Errorf("a request after the restart failed: %v", a)
	}
	if pages, contexts := app.Settled(pages0, contexts0); pages != pages0 || contexts != contexts0 {
		t.Errorf("after the restart the browser has %d pages and %d contexts; it started with %d and %d", pages, contexts, pages0, contexts0)
	}
	newPID := app.Sidecar.BrowserPID()
	newProfile := profileDirOf(t, newPID)
	if !e2e.Eventually(10*time.Second, func() bool { return liveCount(generationProcesses(newPID, newProfile)) <= fresh }) {
		t.Errorf("the new browser runs %d processes (%v); a fresh one ran %d",
			liveCount(generationProcesses(newPID, newProfile)), kinds(generationProcesses(newPID, newProfile)), fresh)
	}
	t.Logf("the new browser runs %d processes: %v", liveCount(generationProcesses(newPID, newProfile)), kinds(generationProcesses(newPID, newProfile)))
}

func TestSidecarKilledWhileAnotherServes(t *testing.T) {
	one := startSidecar(t, "127.0.0.1:0")
	two := startSidecar(t, "127.0.0.1:0")
	app := e2e.StartApp(t, func(c *orchestrator.Config) {
		c.Sidecars = one.addr + "," + two.addr
		c.SidecarToken = externalSidecarToken
		c.SidecarConcurrency = 2
		c.Warm = 0 // a page on a sidecar then means a request was sent to it
	})
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/page": slowPage(200 * time.Millisecond)})
	state := func(addr string) string {
		for _, s := range app.Pool.Snapshot().Sidecars {
			if s.Addr == addr {
				return s.State
			}
		}
		return "absent"
	}

	type result struct {
		phase string
		r     e2e.Reply
	}
	var phase atomic.Value
	phase.Store("both up")
	// answered counts the answers of each phase, so that each phase lasts
	// until enough requests went through it rather than for a set time.
	answered := map[string]*atomic.Int64{"both up": {}, "one killed": {}, "one back": {}}
	results := make(chan result, 10000)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var seq atomic.Int64
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				p := phase.Load().(string)
				r := app.TryGet(fmt.Sprintf("%s/page?n=%d", ps.URL, seq.Add(1)), "prerender=true&timeout=30s")
				results <- result{p, r}
				answered[p].Add(1)
			}
		}()
	}
	stopLoad := sync.OnceFunc(func() { close(stop); wg.Wait(); close(results) })
	defer stopLoad()

	// Both sidecars serve: a page on each means requests went to both.
	const perPhase = 4
	if !e2e.Eventually(30*time.Second, func() bool {
		return answered["both up"].Load() >= perPhase &&
			one.srv.Sidecar().Health().PagesCreated > 0 && two.srv.Sidecar().Health().PagesCreated > 0
	}) {
		t.Fatalf("with both sidecars up, %d answers in 30s and pages created %d and %d", answered["both up"].Load(),
			one.srv.Sidecar().Health().PagesCreated, two.srv.Sidecar().Health().PagesCreated)
	}
	phase.Store("one killed")
	one.stop(t)
	if !e2e.Eventually(10*time.Second, func() bool { return state(one.addr) != "healthy" }) {
		t.Fatalf("the pool still calls the killed sidecar healthy: %+v", app.Pool.Snapshot())
	}
	// The pool routes around it meanwhile.
	if !e2e.Eventually(30*time.Second, func() bool { return answered["one killed"].Load() >= perPhase }) {
		t.Fatalf("with one sidecar killed, %d answers in 30s", answered["one killed"].Load())
	}

	phase.Store("one back")
	back := startSidecar(t, one.addr)
	if !e2e.Eventually(20*time.Second, func() bool { return state(one.addr) == "healthy" }) {
		t.Fatalf("the pool did not pick the returning sidecar up: %+v", app.Pool.Snapshot())
	}
	if !e2e.Eventually(20*time.Second, func() bool { return back.srv.Sidecar().Health().PagesCreated > 0 }) {
		t.Fatal("no request reached the returning sidecar within 20s")
	}
	stopLoad()

	count := map[string][2]int{}
	for res := range results {
		c := count[res.phase]
		if res.r.HTTP == 200 {
			c[0]++
		} else {
			c[1]++
			if res.r.ClearFailure() {
				t.Logf("%s: a request failed clearly: %v", res.phase, res.r)
			} else {
				t.Errorf("%s: a request got %v; want success, a clear 5xx or a crashed page's 424", res.phase, res.r)
			}
		}
		count[res.phase] = c
	}
	for _, p := range []string{"both up", "one killed", "one back"} {
		c := count[p]
		t.Logf("%s: %d succeeded, %d failed", p, c[0], c[1])
		if c[0] == 0 {
			t.Errorf("%s: no request succeeded", p)
		}
		if c[1] > 0 {
			t.Errorf("%s: %d requests failed although another sidecar was serving", p, c[1])
		}
	}
}

// soak reports whether the long runs were asked for: GLIMPSE_SOAK=1 (or
// full), as `make soak` sets it.
func soak() bool {
	switch os.Getenv("GLIMPSE_SOAK") {
	case "1", "full", "true":
		return true
	}
	return false
}

// TestRecyclingNeverLeavesTheServiceWithoutABrowser renders through two
// sidecars that recycle their Chromium again and again. By default each
// recycles every 4 pages over 160 requests; GLIMPSE_SOAK=1 runs the
// production-like length, every 50 pages over 2,000 requests. Both cross
// about 40 recycles.
func TestRecyclingNeverLeavesTheServiceWithoutABrowser(t *testing.T) {
	total, recycleAfter := 160, 4
	if soak() {
		total, recycleAfter = 2000, 50
	}
	recycling := func(c *sidecar.Config) { c.RecycleAfter = recycleAfter }
	one := startSidecarWith(t, "127.0.0.1:0", recycling)
	two := startSidecarWith(t, "127.0.0.1:0", recycling)
	app := e2e.StartApp(t, func(c *orchestrator.Config) {
		c.Sidecars, c.SidecarToken = one.addr+","+two.addr, externalSidecarToken
		c.SidecarConcurrency = 2
	})
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/": e2e.HTML(e2e.ArticlePage)})
	gen1, gen2 := one.srv.Sidecar().Generation(), two.srv.Sidecar().Generation()

	// The pool's view, sampled all along: some sidecar must always serve.
	stop := make(chan struct{})
	var samples, without atomic.Int64
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			samples.Add(1)
			serving := false
			for _, s := range app.Pool.Snapshot().Sidecars {
				serving = serving || s.State == "healthy"
			}
			if !serving {
				without.Add(1)
			}
		}
	}()

	mix := []string{"prerender=true&meta=false&pdf=true", "prerender=true&meta=false&screenshot=true"}
	for range 8 {
		mix = append(mix, "prerender=true")
	}
	var next atomic.Int64
	var failures atomic.Int64
	var first atomic.Value
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(total) {
					return
				}
				a := app.TryGet(fmt.Sprintf("%s/?n=%d", ps.URL, i), mix[i%int64(len(mix))]+"&force=true&timeout=30s")
				if a.Err != nil || a.HTTP != 200 {
					failures.Add(1)
					first.CompareAndSwap(nil, a.String())
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	recycles := (one.srv.Sidecar().Generation() - gen1) + (two.srv.Sidecar().Generation() - gen2)
	t.Logf("%d requests, a recycle every %d pages, %d recycles, %d pool samples", total, recycleAfter, recycles, samples.Load())
	if n := failures.Load(); n > 0 {
		t.Errorf("%d of %d requests failed across recycles; the first: %v", n, total, first.Load())
	}
	if n := without.Load(); n > 0 {
		t.Errorf("%d of %d samples found no sidecar serving", n, samples.Load())
	}
	if recycles < 10 {
		t.Errorf("only %d recycles happened; the test means to cross many", recycles)
	}
}

func TestEverySidecarDownAnswersBusyAtOnce(t *testing.T) {
	sc := startSidecar(t, "127.0.0.1:0")
	app := e2e.StartApp(t, func(c *orchestrator.Config) { c.Sidecars, c.SidecarToken = sc.addr, externalSidecarToken })
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/": e2e.HTML(e2e.ArticlePage)})
	if a := app.TryGet(ps.URL+"/", "prerender=true"); a.HTTP != 200 {
		t.Fatalf("with the sidecar up: %v", a)
	}
	sc.stop(t)
	if !e2e.Eventually(15*time.Second, func() bool {
		s := app.Pool.Snapshot().Sidecars
		return len(s) == 1 && s[0].State == "unhealthy"
	}) {
		t.Fatalf("the stopped sidecar was never reported unhealthy: %+v", app.Pool.Snapshot().Sidecars)
	}
	// A sidecar that has just gone down is waited for two probe intervals,
	// as it is most often restarting its browser; this one stays down.
	time.Sleep(2500 * time.Millisecond)
	a := app.TryGet(ps.URL+"/?down", "prerender=true&timeout=20s")
	if a.HTTP != 503 || a.Code != "EBUSY" || a.Header.Get("retry-after") == "" {
		t.Errorf("with every sidecar down the answer is %v (retry-after %q); want 503 EBUSY with retry-after", a, a.Header.Get("retry-after"))
	}
	if a.Took > 1500*time.Millisecond {
		t.Errorf("with every sidecar down the answer took %s; want it within 1.5s, not the request's timeout", a.Took)
	}
}

func TestStorageOutage(t *testing.T) {
	minio := miniotest.New(t)
	app := e2e.StartApp(t, func(c *orchestrator.Config) {
		c.S3Endpoint, c.S3AccessKey, c.S3SecretKey, c.S3Bucket = minio.Endpoint, minio.AccessKey, minio.SecretKey, "glimpse-chaos"
	})
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/": e2e.HTML(e2e.ArticlePage)})
	// ready returns /readyz's status code and what it says of storage.
	ready := func() (int, string) {
		resp, err := (&http.Client{Timeout: 90 * time.Second}).Get(app.URL() + "/readyz")
		if err != nil {
			return 0, ""
		}
		defer resp.Body.Close()
		var body struct {
			Storage string `json:"storage"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body.Storage
	}

	if a := app.TryGet(ps.URL+"/?before", "pdf=true"); a.HTTP != 200 || !a.Has("pdf") {
		t.Fatalf("a PDF with storage up: %v", a)
	}

	minio.Stop(t)
	t.Run("PDF requests fail clearly", func(t *testing.T) {
		a := app.TryGet(ps.URL+"/?during", "pdf=true&timeout=20s")
		if !a.Clear5xx() || a.HTTP != 503 {
			t.Fatalf("a PDF with storage down answered %v; want a clear 503", a)
		}
		if !strings.Contains(strings.ToLower(a.Message), "storage") {
			t.Errorf("the message %q does not name storage as the cause", a.Message)
		}
		if a.Header.Get("retry-after") == "" {
			t.Error("the answer does not say when to retry")
		}
		if a.Took > 15*time.Second {
			t.Errorf("the failure took %s to arrive", a.Took)
		}
	})
	t.Run("metadata requests keep working", func(t *testing.T) {
		for i, mode := range []string{"", "prerender=true", "prerender=true&ping=false"} {
			a := app.TryGet(fmt.Sprintf("%s/?meta=%d", ps.URL, i), mode+"&timeout=20s")
			if a.HTTP != 200 || a.Field("title") != "A walk in the park" {
				t.Fatalf("a metadata request with storage down answered %v", a)
			}
			if a.Took > 10*time.Second {
				t.Errorf("a metadata request took %s with storage down", a.Took)
			}
		}
	})
	t.Run("readiness reports the outage and keeps the replica in its Service", func(t *testing.T) {
		if code, storage := ready(); code != 200 || storage == "ok" || storage == "" {
			t.Errorf("/readyz answered %d, storage %q with storage down; want 200 naming the storage error", code, storage)
		}
	})

	minio.Start(t)
	t.Run("PDF requests work again once storage is back", func(t *testing.T) {
		if !e2e.Eventually(20*time.Second, func() bool { code, storage := ready(); return code == 200 && storage == "ok" }) {
			t.Fatal("/readyz did not report storage back")
		}
		if a := app.TryGet(ps.URL+"/?after", "pdf=true"); a.HTTP != 200 || !a.Has("pdf") {
			t.Fatalf("a PDF after storage returned: %v", a)
		}
	})
}

func TestShutdownUnderLoad(t *testing.T) {
	t.Run("requests in flight finish and new ones are refused", func(t *testing.T) {
		app := e2e.StartApp(t, nil)
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/slow": slowPage(1500 * time.Millisecond)})
		const n = 6
		replies := make(chan e2e.Reply, n)
		for i := range n {
			go func() { replies <- app.TryGet(fmt.Sprintf("%s/slow?i=%d", ps.URL, i), "prerender=true&timeout=30s") }()
		}
		if !e2e.Eventually(20*time.Second, func() bool { return ps.Hits["/slow"].Load() >= 2 }) {
			t.Fatal("the requests never reached the target")
		}
		const grace = 20 * time.Second
		start := time.Now()
		shut := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), grace)
			defer cancel()
			shut <- app.Shutdown(ctx)
		}()
		time.Sleep(200 * time.Millisecond)
		if r := app.TryGet(ps.URL+"/slow?late", "prerender=true"); r.Err == nil && r.HTTP < 500 {
			t.Errorf("a request sent during shutdown was accepted: %v", r)
		}
		for range n {
			if r := <-replies; r.HTTP != 200 {
				t.Errorf("a request in flight at shutdown got %v; want it to finish", r)
			}
		}
		if err := <-shut; err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if d := time.Since(start); d > grace {
			t.Errorf("shutdown took %s, beyond its grace of %s", d, grace)
		}
		if _, err := net.DialTimeout("tcp", app.Addr(), time.Second); err == nil {
			t.Error("the API still accepts connections after Shutdown")
		}
	})

	t.Run("requests that cannot finish do not hold shutdown past its grace", func(t *testing.T) {
		app := e2e.StartApp(t, nil)
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/never": hangPage})
		pid := app.Sidecar.BrowserPID()
		profile := profileDirOf(t, pid)
		replies := make(chan e2e.Reply, 2)
		for i := range 2 {
			go func() { replies <- app.TryGet(fmt.Sprintf("%s/never?i=%d", ps.URL, i), "prerender=true&timeout=60s") }()
		}
		if !e2e.Eventually(20*time.Second, func() bool { return ps.Hits["/never"].Load() >= 2 }) {
			t.Fatal("the requests never reached the target")
		}
		const grace = 2 * time.Second
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		err := app.Shutdown(ctx)
		took := time.Since(start)
		t.Logf("Shutdown with requests that never finish returned after %s: %v", took.Round(time.Millisecond), err)
		if took > grace+10*time.Second {
			t.Errorf("Shutdown took %s with a grace of %s", took, grace)
		}
		for range 2 {
			select {
			case r := <-replies:
				switch {
				case r.Err != nil:
					// The connection closed with the server: a client retries that.
				case r.HTTP == 503 && r.Code != "" && r.Code != "EFATAL" && r.Header.Get("retry-after") != "":
				default:
					t.Errorf("a request cut off by shutdown got %v; want a 503 that says the service is going away "+
						"and when to retry, not an unexpected error", r)
				}
			case <-time.After(15 * time.Second):
				t.Error("a request cut off by shutdown still has no answer 15s later")
			}
		}
		if !e2e.Eventually(10*time.Second, func() bool { return len(generationProcesses(pid, profile)) == 0 }) {
			t.Errorf("Chromium processes remain after shutdown: %+v", generationProcesses(pid, profile))
		}
	})
}

// ---------------------------------------------------------------------------
// Overload

func TestOverloadAnswersBusyAndServesTheAdmitted(t *testing.T) {
	const capacity, queue, callers = 4, 16, 200
	app := e2e.StartApp(t, func(c *orchestrator.Config) { c.SidecarConcurrency = capacity; c.QueueSize = queue })
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/page": slowPage(300 * time.Millisecond)})
	pages0, contexts0 := app.Settled(-1, -1)

	gate := make(chan struct{})
	replies := make(chan e2e.Reply, callers)
	for i := range callers {
		go func() {
			<-gate
			replies <- app.TryGet(fmt.Sprintf("%s/page?i=%d", ps.URL, i), "prerender=true&force=true&timeout=60s")
		}()
	}
	close(gate)
	var admitted, busy []time.Duration
	for range callers {
		r := <-replies
		switch {
		case r.HTTP == 200:
			admitted = append(admitted, r.Took)
		case r.HTTP == 503 && r.Code == "EBUSY":
			busy = append(busy, r.Took)
			if r.Header.Get("retry-after") == "" {
				t.Errorf("EBUSY without retry-after: %v", r)
			}
		default:
			t.Errorf("an overloaded request got %v; want 200 or 503 EBUSY", r)
		}
	}
	slices.Sort(admitted)
	slices.Sort(busy)
	t.Logf("%d callers on %d browsers with a queue of %d: %d admitted (slowest %s), %d busy (slowest %s)",
		callers, capacity, queue, len(admitted), slowest(admitted), len(busy), slowest(busy))
	if len(admitted) < capacity+queue {
		t.Errorf("only %d requests were admitted; the pool has room for %d at once", len(admitted), capacity+queue)
	}
	if len(busy) == 0 {
		t.Error("no caller was told the service is busy")
	}
	if d := slowest(busy); d > 5*time.Second {
		t.Errorf("the slowest EBUSY took %s; the excess must be refused at once", d)
	}
	// An admitted request waits at most for the queue ahead of it.
	if d := slowest(admitted); d > 45*time.Second {
		t.Errorf("the slowest admitted request took %s", d)
	}
	snap := app.Pool.Snapshot()
	if snap.Queued != 0 {
		t.Errorf("%d callers are still queued after every answer", snap.Queued)
	}
	if pages, contexts := app.Settled(pages0, contexts0); pages != pages0 || contexts != contexts0 {
		t.Errorf("after the overload the browser has %d pages and %d contexts; it started with %d and %d", pages, contexts, pages0, contexts0)
	}
}

// slowest is the last of sorted durations.
func slowest(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return ds[len(ds)-1].Round(time.Millisecond)
}

// ---------------------------------------------------------------------------
// Soak

// TestSoakLeavesNothingBehind sends a mix of requests with a fault now and
// then, and checks that the service ends where it started. GLIMPSE_SOAK=1
// runs 2,000 requests with a fault every 200; the default is a short run
// with as many faults of each kind.
func TestSoakLeavesNothingBehind(t *testing.T) {
	total, faultEvery := 200, 50
	if soak() {
		total, faultEvery = 2000, 200
	}
	app := e2e.StartApp(t, nil)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/article": e2e.HTML(e2e.ArticlePage),
		"/slow":    slowPage(1500 * time.Millisecond),
		"/never":   hangPage,
		"/loop": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/loop?"+r.URL.RawQuery+"x", http.StatusFound)
		},
	})
	pages0, contexts0 := app.Settled(-1, -1)
	fresh := liveCount(generationProcesses(app.Sidecar.BrowserPID(), ""))

	// kinds of request, each with the answers it may get when no fault is near.
	type kind struct {
		name  string
		query func(i int) string
		code  string // "" for success
	}
	target := func(path string, i int) string { return url.QueryEscape(fmt.Sprintf("%s%s?i=%d", ps.URL, path, i)) }
	kinds := []kind{
		{"metadata", func(i int) string { return "url=" + target("/article", i) }, ""},
		{"metadata in the browser", func(i int) string {
			return "url=" + target("/article", i) + "&prerender=true&meta.title=true&meta.lang=true"
		}, ""},
		{"cache hit", func(i int) string { return "url=" + target("/article", -1) }, ""},
		{"pdf", func(i int) string { return "url=" + target("/article", i) + "&pdf=true" }, ""},
		{"cache hit", func(i int) string { return "url=" + target("/article", -2) + "&pdf=true" }, ""},
		{"bad query", func(i int) string { return "url=" + target("/article", i) + "&pdf.scale=9" }, "EINVALQUERY"},
		{"forbidden target", func(i int) string { return "url=" + url.QueryEscape(fmt.Sprintf("http://10.0.0.1/?i=%d", i)) }, "EFORBIDDENURL"},
		{"endless redirects", func(i int) string { return "url=" + target("/loop", i) + "&prerender=true" }, "EMAXREDIRECTS"},
		{"target too slow", func(i int) string { return "url=" + target("/never", i) + "&prerender=true&timeout=1s" }, "ETIMEOUT"},
		{"metadata in the browser", func(i int) string { return "url=" + target("/article", i) + "&prerender=true&force=true" }, ""},
	}

	// faults, taken in turn.
	faults := []struct {
		name string
		do   func()
	}{
		{"Chromium killed", func() { _ = syscall.Kill(app.Sidecar.BrowserPID(), syscall.SIGKILL) }},
		{"callers hang up mid-render", func() {
			for i := range 4 {
				ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet,
					app.URL()+"/?url="+target("/slow", 1_000_000+i)+"&prerender=true&force=true", nil)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
				cancel()
			}
		}},
		{"a renderer killed", func() {
			for _, p := range generationProcesses(app.Sidecar.BrowserPID(), "") {
				if !p.zombie && strings.Contains(p.cmdline, "--type=renderer") {
					_ = syscall.Kill(p.pid, syscall.SIGKILL)
					return
				}
			}
		}},
	}

	// A short warm-up fills the pools and caches that legitimately grow once.
	for i := range 10 {
		if r := app.TryDo(kinds[i%len(kinds)].query(-100 - i)); r.Err != nil {
			t.Fatalf("warm-up: %v", r)
		}
	}
	http.DefaultClient.CloseIdleConnections()
	e2e.CloseIdleConnections()
	ps.CloseClientConnections()
	time.Sleep(500 * time.Millisecond)
	goroutines0, fds0 := goruntime.NumGoroutine(), openFDs()

	type outcome struct {
		kind      kind
		r         e2e.Reply
		nearFault bool
	}
	// A request is near a fault when one struck while it ran or shortly
	// before it began, while the browser was still coming back.
	var faultMu sync.Mutex
	var faultTimes []time.Time
	nearFault := func(start, end time.Time) bool {
		faultMu.Lock()
		defer faultMu.Unlock()
		for _, f := range faultTimes {
			if f.After(start.Add(-10*time.Second)) && f.Before(end) {
				return true
			}
		}
		return false
	}
	jobs := make(chan int)
	outcomes := make(chan outcome, total)
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				k := kinds[i%len(kinds)]
				start := time.Now()
				r := app.TryDo(k.query(i))
				outcomes <- outcome{k, r, nearFault(start, time.Now())}
			}
		}()
	}
	began := time.Now()
	for i := range total {
		if i > 0 && i%faultEvery == 0 {
			f := faults[(i/faultEvery-1)%len(faults)]
			t.Logf("request %d: fault: %s", i, f.name)
			faultMu.Lock()
			faultTimes = append(faultTimes, time.Now())
			faultMu.Unlock()
			f.do()
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(outcomes)

	tally := map[string]int{}
	var clearFailures int
	for o := range outcomes {
		r := o.r
		switch {
		case r.Err != nil:
			t.Errorf("%s: no answer: %v", o.kind.name, r)
		case o.kind.code == "" && r.HTTP == 200, o.kind.code != "" && r.Code == o.kind.code:
			tally[o.kind.name]++
		case o.nearFault && r.ClearFailure():
			clearFailures++
			t.Logf("%s near a fault: %v", o.kind.name, r)
		default:
			t.Errorf("%s: got %v; want %s", o.kind.name, r, orSuccess(o.kind.code))
		}
	}
	t.Logf("%d requests in %s: %v; %d clear failures near faults", total, time.Since(began).Round(time.Second), tally, clearFailures)
	if clearFailures > total/20 {
		t.Errorf("%d requests failed near faults; the faults should cost a few requests each, not %d", clearFailures, clearFailures)
	}

	// Nothing left behind.
	if !e2e.Eventually(20*time.Second, func() bool { return app.Sidecar.Health().Status == sidecar.StatusOK }) {
		t.Fatalf("the sidecar is not healthy after the soak: %+v", app.Sidecar.Health())
	}
	if pages, contexts := app.Settled(pages0, contexts0); pages != pages0 || contexts != contexts0 {
		t.Errorf("after the soak the browser has %d pages and %d contexts; it started with %d and %d", pages, contexts, pages0, contexts0)
	}
	pid := app.Sidecar.BrowserPID()
	// A leak shows as more processes than a fresh browser runs; one fewer
	// is Chromium not having started a spare renderer or utility process yet.
	if !e2e.Eventually(15*time.Second, func() bool { return liveCount(generationProcesses(pid, "")) <= fresh }) {
		t.Errorf("after the soak the browser runs %d processes; a fresh one runs %d", liveCount(generationProcesses(pid, "")), fresh)
	}
	http.DefaultClient.CloseIdleConnections()
	e2e.CloseIdleConnections()
	ps.CloseClientConnections()
	const slack = 10 // connections the browser keeps open to targets and the egress guard
	if !e2e.Eventually(15*time.Second, func() bool { return goruntime.NumGoroutine() <= goroutines0+slack }) {
		buf := make([]byte, 1<<20)
		buf = buf[:goruntime.Stack(buf, true)]
		t.Errorf("goroutines grew from %d to %d over the soak; their stacks:\n%s", goroutines0, goruntime.NumGoroutine(), buf)
	}
	if !e2e.Eventually(15*time.Second, func() bool { return openFDs() <= fds0+slack }) {
		t.Errorf("open file descriptors grew from %d to %d over the soak", fds0, openFDs())
	}
	t.Logf("goroutines %d → %d, file descriptors %d → %d, browser processes %d (fresh %d)",
		goroutines0, goruntime.NumGoroutine(), fds0, openFDs(), liveCount(generationProcesses(pid, "")), fresh)
}

func orSuccess(code string) string {
	if code != "" {
		return code
	}
	return "success"
}

// ---------------------------------------------------------------------------
// Logs

func TestRequestLogsCarryNoSecrets(t *testing.T) {
	const (
		apiKey      = "k-live-4b1d5ecre7"
		unknownKey  = "k-wrong-9c0ffee5ecret"
		cookieValue = "sess-a11ce5ecret"
		token       = "tok-5ecret-b0b"
		password    = "pa55w0rd-5ecret"
	)
	secrets := []string{apiKey, unknownKey, cookieValue, token, password}
	buf := &e2e.LogBuffer{}
	log := logging.New(buf, "json", "info")
	app := e2e.StartAppLogging(t, log, fmt.Sprintf(`anonymous: {name: test, limit: 1000000, window: 1h}
plans:
  - {name: pro, limit: 1000000, window: 1h}
keys:
  - {key: %s, plan: pro}
`, apiKey), nil)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/private": func(w http.ResponseWriter, r *http.Request) {
			title := "anonymous"
			if c, err := r.Cookie("sid"); err == nil && c.Value == cookieValue {
				title = "signed in"
			}
			e2e.HTML(`<!doctype html><html><head><title>`+title+`</title></head><body></body></html>`)(w, r)
		},
		"/file": func(w http.ResponseWriter, r *http.Request) {
			// Hangs up without an answer: the target's failure.
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
		},
	})
	host := strings.TrimPrefix(ps.URL, "http://")
	withSecrets := func(path string) string { return "http://" + host + path + "?token=" + token + "&page=2" }
	cookie := "headers.cookie=" + url.QueryEscape("sid="+cookieValue)

	cases := []struct {
		name   string
		target string
		extra  string
		key    string
		status int
		code   string
		cache  string
	}{
		{"a signed-in render", withSecrets("/private"), cookie, apiKey, 200, "OK", "MISS"},
		{"the same answer from cache", withSecrets("/private"), cookie, apiKey, 200, "OK", "HIT"},
		{"an unknown API key", withSecrets("/private"), cookie, unknownKey, 401, "EAUTH", "NONE"},
		{"a bad parameter", withSecrets("/private"), cookie + "&pdf.scale=" + token, apiKey, 400, "EINVALQUERY", "NONE"},
		{"a target that fails", withSecrets("/file"), cookie, apiKey, 424, "EFETCH", "NONE"},
		{"a target with a password in it", "http://user:" + password + "@" + host + "/private?token=" + token, cookie, apiKey, 400, "EINVALURL", "NONE"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := app.TryGet(c.target, c.extra, "x-api-key", c.key)
			if r.Err != nil || r.HTTP != c.status {
				t.Fatalf("got %v, want %d", r, c.status)
			}
			if c.status == 200 && r.Field("title") != "signed in" {
				t.Errorf("the forwarded cookie did not reach the target: %s", r.Data)
			}
			id := r.Header.Get("x-request-id")
			var lines []map[string]any
			if !e2e.Eventually(5*time.Second, func() bool {
				lines = requestLines(t, buf.String(), id)
				return len(lines) > 0
			}) {
				t.Fatalf("no request line for %s in the log:\n%s", id, buf.String())
			}
			if len(lines) != 1 {
				t.Fatalf("%d request lines for %s, want one", len(lines), id)
			}
			line := lines[0]
			for _, k := range []string{"time", "level", "request_id", "code", "status", "duration_ms", "cache"} {
				if _, ok := line[k]; !ok {
					t.Errorf("the request line lacks %q: %v", k, line)
				}
			}
			if line["code"] != c.code || line["status"] != float64(c.status) || line["cache"] != c.cache {
				t.Errorf("request line code=%v status=%v cache=%v; want %s, %d, %s", line["code"], line["status"], line["cache"], c.code, c.status, c.cache)
			}
			if d, ok := line["duration_ms"].(float64); !ok || d <= 0 {
				t.Errorf("duration_ms = %v, want a positive number", line["duration_ms"])
			}
		})
	}
	logged := buf.String()
	for _, s := range secrets {
		if i := strings.Index(logged, s); i >= 0 {
			from, to := max(0, strings.LastIndexByte(logged[:i], '\n')+1), len(logged)
			if j := strings.IndexByte(logged[i:], '\n'); j >= 0 {
				to = i + j
			}
			t.Errorf("the log contains the secret %q:\n%s", s, logged[from:to])
		}
	}
	if t.Failed() {
		t.Logf("the whole log:\n%s", logged)
	}
}

// requestLines returns the JSON "request" log lines of one request id.
func requestLines(t *testing.T, logged, id string) []map[string]any {
	var out []map[string]any
	for _, l := range strings.Split(logged, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Errorf("a log line is not JSON: %q", l)
			continue
		}
		if m["msg"] == "request" && m["request_id"] == id {
			out = append(out, m)
		}
	}
	return out
}
