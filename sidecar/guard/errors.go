package guard

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// ErrRefused matches every *RefusedError with errors.Is, so callers can test
// for a refusal without caring which range caused it.
var ErrRefused = errors.New("address refused")

// RefusedError says that Host is, or resolves to, Addr, which lies in a range
// the address rule does not allow; Reason names that range. Port is set when
// the port, not the range, was refused (Reason is then ReasonControlPort).
type RefusedError struct {
	Host   string
	Addr   netip.Addr
	Port   uint16
	Reason string
}

func (e *RefusedError) Error() string {
	if e.Port != 0 && e.Addr.IsValid() {
		return fmt.Sprintf("%s is a control port of the glimpse sidecar on this machine, which glimpse never connects to, whatever the allow-list says",
			netip.AddrPortFrom(e.Addr, e.Port))
	}
	if !e.Addr.IsValid() {
		host := e.Host
		if host == "" {
			host = "the target"
		}
		return fmt.Sprintf("%s has no valid address (%s), so glimpse does not connect to it", host, e.Reason)
	}
	addr := e.Addr.String()
	what := describe(e.Reason)
	if e.Host == "" || strings.Trim(e.Host, "[]") == addr {
		return fmt.Sprintf("%s is %s, which glimpse does not connect to", addr, what)
	}
	return fmt.Sprintf("%s resolves to %s, %s, which glimpse does not connect to", e.Host, addr, what)
}

// describe turns a range name into a phrase: "loopback" becomes "a loopback
// address", "NAT64 of private (RFC 1918)" becomes "a NAT64 form of a private
// (RFC 1918) address".
func describe(reason string) string {
	if form, inner, ok := strings.Cut(reason, " of "); ok {
		return article(form) + " " + form + " form of " + article(inner) + " " + inner + " address"
	}
	return article(reason) + " " + reason + " address"
}

// Is makes errors.Is(err, ErrRefused) true for every refusal.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// LookupError says that Host could not be turned into addresses at all: the
// name does not exist, the resolver failed, or a numeric-looking host is not
// a valid address.
type LookupError struct {
	Host string
	Err  error
}

func (e *LookupError) Error() string {
	return fmt.Sprintf("glimpse could not resolve %s: %v", e.Host, e.Err)
}

func (e *LookupError) Unwrap() error { return e.Err }

// article picks "a" or "an" for a range name so that messages read naturally
// ("an IPv4-mapped loopback address", "a private (RFC 1918) address").
func article(reason string) string {
	r := strings.ToLower(reason)
	if strings.HasPrefix(r, "uni") {
		return "a"
	}
	if r != "" && strings.ContainsRune("aeiou", rune(r[0])) {
		return "an"
	}
	return "a"
}
