package pool

import (
	"testing"
	"time"
)

// A call that failed on a connection other than the sidecar's current
// browser connection (a page's own, or a browser a recycle replaced) does
// not take a working sidecar out of rotation, nor drop its warm pages.
func TestAFailureOffTheBrowsersConnectionKeepsTheSidecar(t *testing.T) {
	requireChromium(t)
	ls := startSidecar(t, nil)
	p := newTestPool(t, Config{Sidecars: ls.addr, Warm: 1, PerSidecar: 2})
	waitFor(t, 20*time.Second, "a warm page to be ready", func() bool {
		s, _ := stateOf(p, ls.addr)
		return s.State == "healthy" && s.Warm == 1
	})
	sc := p.list()[0]
	sc.lost()
	if s, _ := stateOf(p, ls.addr); s.State != "healthy" || s.Warm != 1 {
		t.Fatalf("after a failure off its browser connection the sidecar is %+v; want healthy with its warm page", s)
	}
}
