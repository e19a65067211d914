package sidecar

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"

	"github.com/glimpse/glimpse/cdp"
)

// renderers counts the renderer processes of the sidecar's current browser.
func renderers(t *testing.T, s *Sidecar) int {
	t.Helper()
	s.mu.Lock()
	p := s.cur.proc
	s.mu.Unlock()
	procs, err := members("/proc", p.pid, p.profileDir)
	if err != nil {
		t.Fatalf("listing the browser's processes: %v", err)
	}
	n := 0
	for _, st := range procs {
		b, err := os.ReadFile(filepath.Join("/proc", fmt.Sprint(st.pid), "cmdline"))
		if err == nil && !st.zombie() && bytes.Contains(b, []byte("--type=renderer")) {
			n++
		}
	}
	return n
}

// Every render opens a page in a browser context of its own, which
// headless Chromium shows in a window of its own. What Chromium starts for
// a window beside the page (the address bar's popups, a spare renderer for
// a next navigation) is paid on every render and used by none.
func TestANewPageStartsOnlyItsOwnRenderer(t *testing.T) {
	s, srv := startSidecar(t, Config{})
	c := dialDevTools(t, srv.URL)

	before := renderers(t, s)
	ids := []target.ID{createPage(t, c), createPage(t, c)}
	// Chromium starts what a window wants within moments; give it time.
	time.Sleep(1500 * time.Millisecond)
	if got := renderers(t, s) - before; got > len(ids) {
		t.Errorf("two new pages started %d renderer processes, want at most one each", got)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ts, err := cdp.Execute(ctx, c.Browser(), target.GetTargets, target.GetTargetsParams{Filter: target.Filter{{}}})
	if err != nil {
		t.Fatalf("listing every target: %v", err)
	}
	for _, ti := range ts.TargetInfos {
		if ti.Type == "browser_ui" || strings.HasPrefix(ti.URL, "chrome://") {
			t.Errorf("Chromium runs %s %s beside the pages", ti.Type, ti.URL)
		}
	}
	for _, id := range ids {
		closePage(t, c, id)
	}
}
