package guard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"syscall"
	"time"
)

const (
	// DefaultDialTimeout bounds one connection attempt when Dialer.Timeout
	// is zero. A host's other addresses are raced meanwhile, so one that
	// does not answer costs only attemptDelay of the others' time.
	DefaultDialTimeout = 5 * time.Second
	// DefaultDialBudget bounds a whole DialContext, over every address,
	// when Dialer.Budget is zero.
	DefaultDialBudget = 15 * time.Second
	// attemptDelay is how long an attempt has to connect before the next
	// address is tried alongside it (RFC 8305 recommends 250ms).
	attemptDelay = 250 * time.Millisecond
)

// Dialer connects only to addresses the Policy allows. It resolves a name
// once, checks every address, and dials the checked IP itself, so a DNS
// answer that changes between check and connect (rebinding) changes nothing.
// The rule is applied a second time in the socket's Control hook, on the
// address the kernel is asked to connect to, so no path around the lookup
// (a future change, a numeric host, a wrapped dialer) can skip it.
type Dialer struct {
	Policy   *Policy
	Resolver Resolver                     // nil means net.DefaultResolver
	Timeout  time.Duration                // per connection attempt; zero means DefaultDialTimeout
	Budget   time.Duration                // per DialContext, all attempts; zero means DefaultDialBudget
	OnRefuse func(host string, err error) // called for every refusal, for metrics; may be nil

	// connect makes one attempt with nd, which carries the Control hook;
	// nil means nd.DialContext. Tests replace it to make an address hang.
	connect func(ctx context.Context, nd *net.Dialer, network, address string) (net.Conn, error)
}

// DialContext connects to address ("host:port") over tcp, tcp4, tcp6, udp,
// udp4 or udp6. Addresses of the host are raced in the resolver's order (see
// race) until one accepts; a refusal of any of them refuses the host before
// any attempt.
func (d *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	family, err := familyOf(network)
	if err != nil {
		return nil, err
	}
	host, portText, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("glimpse cannot dial %q: it is not host:port: %w", address, err)
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil || port == 0 {
		return nil, fmt.Errorf("glimpse cannot dial %q: the port must be a number from 1 to 65535", address)
	}

	addrs, err := d.Policy.Resolve(ctx, d.resolver(), host)
	if err != nil {
		d.refused(host, err)
		return nil, err
	}
	addrs = filterFamily(addrs, family)
	if len(addrs) == 0 {
		return nil, fmt.Errorf("glimpse cannot dial %s over %s: the host has no IPv%c address", host, network, family)
	}

	for _, a := range addrs {
		if err := d.Policy.checkAddrPort(host, netip.AddrPortFrom(a, uint16(port))); err != nil {
			d.refused(host, err)
			return nil, err
		}
	}

	targets := make([]netip.AddrPort, len(addrs))
	for i, a := range addrs {
		targets[i] = netip.AddrPortFrom(a, uint16(port))
	}
	return d.race(ctx, network, host, targets)
}

// attempt is the outcome of connecting to one address.
type attempt struct {
	conn net.Conn
	err  error
}

// race connects to the checked targets Happy-Eyeballs style: in order, the
// next one starting once the previous has failed or had attemptDelay to
// connect; the first connection wins and the others are closed. A host with
// an address that silently drops packets is then reached at its next
// address within a fraction of a second instead of after a whole timeout.
func (d *Dialer) race(ctx context.Context, network, host string, targets []netip.AddrPort) (net.Conn, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, d.budget())
	defer cancel()
	nd := &net.Dialer{Control: d.control(host)}
	results := make(chan attempt, len(targets))
	next, pending := 0, 0
	launch := func() {
		ap := targets[next]
		next++
		pending++
		go func() {
			actx, acancel := context.WithTimeout(ctx, d.timeout())
			defer acancel()
			c, err := d.dialOne(actx, nd, network, ap.String())
			results <- attempt{c, err}
		}()
	}
	// abandon closes connections that lose the race once they arrive.
	abandon := func() {
		cancel()
		go func(n int) {
			for range n {
				if r := <-results; r.conn != nil {
					r.conn.Close()
				}
			}
		}(pending)
	}
	launch()
	delay := time.NewTimer(attemptDelay)
	defer delay.Stop()
	var errs []error
	for pending > 0 {
		select {
		case r := <-results:
			pending--
			if r.err == nil {
				abandon()
				return r.conn, nil
			}
			if errors.Is(r.err, ErrRefused) || parent.Err() != nil {
				abandon()
				return nil, r.err
			}
			errs = append(errs, r.err)
			// A quick failure (connection refused) need not wait its turn.
			if next < len(targets) && ctx.Err() == nil {
				launch()
				delay.Reset(attemptDelay)
			}
		case <-delay.C:
			if next < len(targets) {
				launch()
				delay.Reset(attemptDelay)
			}
		}
	}
	if next < len(targets) {
		errs = append(errs, fmt.Errorf("%d more addresses were not tried within %v: %w", len(targets)-next, d.budget(), ctx.Err()))
	}
	if len(errs) == 1 {
		return nil, errs[0]
	}
	return nil, fmt.Errorf("glimpse could not connect to %s at any of its %d addresses: %w", host, len(targets), errors.Join(errs...))
}

func (d *Dialer) dialOne(ctx context.Context, nd *net.Dialer, network, address string) (net.Conn, error) {
	if d.connect != nil {
		return d.connect(ctx, nd, network, address)
	}
	return nd.DialContext(ctx, network, address)
}

// control checks the address handed to connect(2). Its refusal surfaces from
// DialContext as a *net.OpError wrapping the *RefusedError.
func (d *Dialer) control(host string) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			err = &RefusedError{Host: host, Reason: "unparsable"}
			d.refused(host, err)
			return err
		}
		if err := d.Policy.checkAddrPort(host, ap); err != nil {
			d.refused(host, err)
			return err
		}
		return nil
	}
}

func (d *Dialer) refused(host string, err error) {
	if d.OnRefuse != nil && errors.Is(err, ErrRefused) {
		d.OnRefuse(host, err)
	}
}

func (d *Dialer) resolver() Resolver {
	if d.Resolver != nil {
		return d.Resolver
	}
	return net.DefaultResolver
}

func (d *Dialer) budget() time.Duration {
	if d.Budget > 0 {
		return d.Budget
	}
	return DefaultDialBudget
}

func (d *Dialer) timeout() time.Duration {
	if d.Timeout > 0 {
		return d.Timeout
	}
	return DefaultDialTimeout
}

// familyOf returns '4', '6' or 0 (either) for the networks the Dialer serves.
func familyOf(network string) (byte, error) {
	switch network {
	case "tcp", "udp":
		return 0, nil
	case "tcp4", "udp4":
		return '4', nil
	case "tcp6", "udp6":
		return '6', nil
	}
	return 0, fmt.Errorf("glimpse dials tcp and udp only, not %q", network)
}

func filterFamily(addrs []netip.Addr, family byte) []netip.Addr {
	if family == 0 {
		return addrs
	}
	out := addrs[:0:0]
	for _, a := range addrs {
		if (family == '4') == a.Is4() {
			out = append(out, a)
		}
	}
	return out
}
