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

// DefaultDialTimeout bounds one connection attempt when Dialer.Timeout is zero.
const DefaultDialTimeout = 10 * time.Second

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
	OnRefuse func(host string, err error) // called for every refusal, for metrics; may be nil
}

// DialContext connects to address ("host:port") over tcp, tcp4, tcp6, udp,
// udp4 or udp6. Addresses of the host are tried in the resolver's order until
// one accepts; a refusal of any of them refuses the host before any attempt.
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

	nd := net.Dialer{Timeout: d.timeout(), Control: d.control(host)}
	var errs []error
	for _, a := range addrs {
		conn, err := nd.DialContext(ctx, network, netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		if errors.Is(err, ErrRefused) || ctx.Err() != nil {
			return nil, err
		}
		errs = append(errs, err)
	}
	if len(errs) == 1 {
		return nil, errs[0]
	}
	return nil, fmt.Errorf("glimpse could not connect to %s at any of its %d addresses: %w", host, len(addrs), errors.Join(errs...))
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
