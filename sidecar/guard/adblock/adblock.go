// Package adblock is the list of ad, tracker and consent-manager hosts that
// the egress guard refuses for pages rendered with `adblock` on (README.md
// says where the list comes from and how to update it).
//
// Blocking at the guard costs the browser nothing: a listed host's request
// is refused when the proxy sees its name, before any connection, and the
// page's other requests pass untouched. Blocking inside Chromium (Fetch
// interception or Network.setBlockedURLs) costs a tenth or more of the
// browser's CPU per page.
package adblock

import (
	_ "embed"
	"strings"
	"sync"
)

//go:embed hosts.txt
var hostsText string

// List is a set of host suffixes: a listed host blocks itself and every
// name under it.
type List struct {
	hosts map[string]bool
}

// Default is the embedded list, parsed once.
var Default = sync.OnceValue(func() *List {
	l, _ := Parse(hostsText)
	return l
})

// Parse reads one host per line; blank lines and lines starting with # are
// skipped. Lines that are not lower-case host names of two labels or more
// are returned apart and left out.
func Parse(text string) (*List, []string) {
	l := &List{hosts: map[string]bool{}}
	var bad []string
	for line := range strings.Lines(text) {
		h := strings.ToLower(strings.TrimSpace(line))
		if h == "" || strings.HasPrefix(h, "#") {
			continue
		}
		if !IsHost(h) {
			bad = append(bad, h)
			continue
		}
		l.hosts[h] = true
	}
	return l, bad
}

// Len is the number of hosts listed.
func (l *List) Len() int { return len(l.hosts) }

// Blocks reports whether host or one of its parents is listed. Case and a
// trailing dot do not matter.
func (l *List) Blocks(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for host != "" {
		if l.hosts[host] {
			return true
		}
		_, parent, ok := strings.Cut(host, ".")
		if !ok {
			return false
		}
		host = parent
	}
	return false
}

// IsHost accepts lower-case DNS names of two labels or more.
func IsHost(h string) bool {
	if len(h) > 253 || !strings.Contains(h, ".") {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}
