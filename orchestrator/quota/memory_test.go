package quota

import (
	"context"
	"fmt"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/glimpse/glimpse/internal/testtool"
)

func TestMemorySweepsWindowsThatEndedAFewAtATime(t *testing.T) {
	ctx := context.Background()
	plan := &Plan{Name: "tiny", Limit: 3, Window: 2 * time.Second}
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	l := NewMemory()
	for i := range 100 {
		l.Take(ctx, fmt.Sprintf("ip:192.0.2.%d", i), plan, t0)
	}
	later := t0.Add(2 * time.Minute)
	l.Take(ctx, "ip:198.51.100.1", plan, later)
	if n, _ := l.Size(); n <= 1 || n > 100-sweepStep+1 {
		t.Errorf("%d windows are kept after one request, want %d ended ones dropped, not all of them", n, sweepStep)
	}
	for range 4 {
		l.Take(ctx, "ip:198.51.100.1", plan, later)
	}
	if n, _ := l.Size(); n != 1 {
		t.Errorf("%d windows are kept, want only the live one", n)
	}
}

// One subscriber of an IPv6 provider holds a /64: a million of its
// addresses are one caller, and a million networks keep no more than the
// table's budget.
func TestAnonymousCallersAreCountedByNetworkInABoundedTable(t *testing.T) {
	testtool.WithoutRace(t)
	if testing.Short() {
		t.Skip("a million requests; skipped with -short")
	}
	ctx := context.Background()
	plan := &Plan{Name: "free", Limit: 50, Window: time.Hour}
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	const n = 1_000_000

	t.Run("a million addresses of one /64 share one quota", func(t *testing.T) {
		l := NewMemory()
		base := netip.MustParseAddr("2001:db8:1:2::").As16()
		allowed := 0
		for i := range n {
			a := base
			a[8], a[12], a[13], a[14], a[15] = byte(i>>24), byte(i>>24), byte(i>>16), byte(i>>8), byte(i)
			if l.Take(ctx, AnonymousID(netip.AddrFrom16(a).String()), plan, now).Allowed {
				allowed++
			}
		}
		if allowed != plan.Limit {
			t.Errorf("%d requests allowed, want the plan's %d", allowed, plan.Limit)
		}
		if w, _ := l.Size(); w != 1 {
			t.Errorf("%d windows kept, want 1", w)
		}
	})

	t.Run("a million /64 networks stay within the table's budget", func(t *testing.T) {
		const budget = 4 << 20
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		l := NewMemoryBounded(budget)
		var slowest time.Duration
		for i := range n {
			a := netip.MustParseAddr("2001:db8::").As16()
			a[4], a[5], a[6], a[7] = byte(i>>24), byte(i>>16), byte(i>>8), byte(i)
			id := AnonymousID(netip.AddrFrom16(a).String())
			start := time.Now()
			// Windows end over the run, so ended ones are swept as it goes.
			l.Take(ctx, id, plan, now.Add(time.Duration(i)*time.Millisecond))
			slowest = max(slowest, time.Since(start))
		}
		windows, bytes := l.Size()
		runtime.GC()
		runtime.ReadMemStats(&after)
		grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		t.Logf("%d windows, %d bytes by the budget's measure, heap grew %d bytes, slowest request %s", windows, bytes, grew, slowest)
		if bytes > budget {
			t.Errorf("the table holds %d bytes, over its budget of %d", bytes, budget)
		}
		if grew > 3*budget {
			t.Errorf("the heap grew by %d bytes for a table of %d", grew, budget)
		}
		runtime.KeepAlive(l)
	})
}

func TestAnonymousIDNamesTheCallersNetwork(t *testing.T) {
	cases := []struct {
		name, a, b string
		same       bool
	}{
		{"two addresses of one /64 are one caller", "2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff", true},
		{"two /64 networks are two callers", "2001:db8:1:2::1", "2001:db8:1:3::1", false},
		{"two IPv4 addresses are two callers", "192.0.2.1", "192.0.2.2", false},
		{"an IPv4 address mapped into IPv6 is the IPv4 address", "::ffff:192.0.2.1", "192.0.2.1", true},
		{"a zone is not part of the network", "fe80::1%eth0", "fe80::2", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := AnonymousID(tc.a) == AnonymousID(tc.b); got != tc.same {
				t.Errorf("%s → %s, %s → %s: same = %t, want %t", tc.a, AnonymousID(tc.a), tc.b, AnonymousID(tc.b), got, tc.same)
			}
		})
	}
	if id := AnonymousID(string(make([]byte, 10_000))); len(id) > 100 {
		t.Errorf("a value that is no address keeps %d bytes", len(id))
	}
}
