package sidecar

import (
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/glimpse/glimpse/sidecar/guard"
)

// Chromium asks for things of its own that no page asked for: account
// lists, component updates, the network time. On a network with a route
// out, a self-hosted service would send them. Every browser context a
// client of the sidecar creates is sent through the egress guard (the
// DevTools filter names the guard as the context's proxy), and Chromium's
// own proxy, which only its background traffic still uses, is this
// refuser: it answers every request 403 and counts what was asked for.

// maxBackgroundHosts bounds the hosts counted one by one; any beyond are
// counted together.
const maxBackgroundHosts = 64

// backgroundRefuser refuses every proxy request and counts them by host.
type backgroundRefuser struct {
	mu    sync.Mutex
	hosts map[string]int64
	total int64
	log   func(host string)
}

func newBackgroundRefuser(log func(host string)) *backgroundRefuser {
	return &backgroundRefuser{hosts: map[string]int64{}, log: log}
}

func (b *backgroundRefuser) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if r.Method != http.MethodConnect && r.URL.Host != "" {
		host = r.URL.Host
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(host)
	b.mu.Lock()
	b.total++
	_, seen := b.hosts[host]
	if seen || len(b.hosts) < maxBackgroundHosts {
		b.hosts[host]++
	} else {
		b.hosts["(other)"]++
	}
	b.mu.Unlock()
	if !seen && b.log != nil {
		b.log(host)
	}
	w.Header().Set(guard.Header, "background")
	http.Error(w, "glimpse's sidecar refuses the browser's own background traffic: no page asked for it", http.StatusForbidden)
}

// counts is how many requests were refused, in all and by host.
func (b *backgroundRefuser) counts() (total int64, hosts map[string]int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	hosts = make(map[string]int64, len(b.hosts))
	for h, n := range b.hosts {
		hosts[h] = n
	}
	return b.total, hosts
}

// BackgroundRefused reports the browser's own requests the sidecar refused,
// in all and by host, since it started.
func (srv *Server) BackgroundRefused() (total int64, hosts map[string]int64) {
	return srv.background.counts()
}

// EgressRequests is how many requests reached the egress guard: the
// pages' own, and the orchestrator's plain fetches.
func (srv *Server) EgressRequests() int64 { return srv.egress.Load() }

// backgroundHosts lists the hosts of a count, sorted, for logs and tests.
func backgroundHosts(hosts map[string]int64) []string {
	out := make([]string, 0, len(hosts))
	for h := range hosts {
		out = append(out, h)
	}
	slices.Sort(out)
	return out
}
