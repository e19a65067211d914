package query

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/sidecar/guard"
)

// domainToASCII is the WHATWG URL standard's "domain to ASCII" with
// beStrict false: UTS #46 non-transitional mapping with the Bidi and joiner
// rules, but neither STD3 rules nor hyphen checks, because browsers reach
// hosts such as "r3---sn-ab.example" and "my_host.example" that idna.Lookup
// would refuse. What may remain in a label is narrowed afterwards by
// checkDomain.
var domainToASCII = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.Transitional(false),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
)

// ParseTarget parses a target URL the way a browser's address bar does (the
// WHATWG URL standard, for http and https): surrounding spaces and control
// characters are dropped, tabs and newlines removed, `\` read as `/`, dot
// segments resolved, characters that cannot travel in a URL
// percent-encoded, an internationalised host turned into punycode and every
// numeric spelling of an address written in its canonical form, so the
// address rule and the cache see the host the browser will connect to. The
// target's own query is kept as given, its escapes untouched; the fragment
// is kept because single-page sites route on it.
//
// It refuses, with EINVALURL, what a browser would refuse, plus user-info
// (credentials belong in `headers.authorization`), port 0, and host names
// that DNS cannot hold (characters other than letters, digits, `-` and `_`,
// empty labels, labels over 63 or names over 253 bytes). ParseTarget does no
// DNS lookup; CheckTarget does.
func ParseTarget(raw string) (*url.URL, error) {
	if !utf8.ValidString(raw) {
		return nil, apierr.URL(raw, "The URL %s is not valid: it contains bytes that are not UTF-8; percent-encode them (as `%%C3%%A9` for `é`).", apierr.Show(raw))
	}
	if strings.IndexByte(raw, 0) >= 0 {
		return nil, apierr.URL(raw, "The URL %s is not valid: it contains a NUL character (`%%00`); remove it.", apierr.Show(raw))
	}
	s := strings.TrimFunc(raw, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	}

	scheme, rest, ok := splitScheme(s)
	if !ok {
		return nil, apierr.URL(raw, "The URL %s is not valid: it needs a protocol (http or https) and a hostname.", apierr.Show(raw))
	}
	if scheme != "http" && scheme != "https" {
		return nil, apierr.URL(raw, "The URL %s is not valid: glimpse fetches only `http://` and `https://` URLs, and this one uses %s.", apierr.Show(raw), apierr.Show(scheme+":"))
	}

	// Special URLs ignore any run of slashes and backslashes before the
	// host, so `http:example.com` and `https:\\example.com` name a host.
	rest = strings.TrimLeft(rest, `/\`)
	fromHost := rest
	end := strings.IndexAny(rest, `/\?#`)
	if end < 0 {
		end = len(rest)
	}
	authority, rest := rest[:end], rest[end:]
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		// The user-info is most likely a password: the answer, which
		// callers log and proxies keep, shows it masked.
		shown := s[:len(s)-len(fromHost)] + "***" + fromHost[at:]
		return nil, apierr.URL(shown, "The URL %s is not accepted: it carries user information before `@`. Remove it, and send credentials with `headers.authorization` instead.", apierr.Show(shown))
	}
	hostPart, port, err := splitHostPort(raw, authority)
	if err != nil {
		return nil, err
	}
	if hostPart == "" {
		return nil, apierr.URL(raw, "The URL %s is not valid: it needs a hostname after `%s://`.", apierr.Show(raw), scheme)
	}
	host, err := parseHost(raw, hostPart)
	if err != nil {
		return nil, err
	}
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}

	var fragment string
	hasFragment := false
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		fragment, rest, hasFragment = rest[i+1:], rest[:i], true
	}
	var query string
	hasQuery := false
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		query, rest, hasQuery = rest[i+1:], rest[:i], true
	}

	var href strings.Builder
	href.Grow(len(s) + 16)
	href.WriteString(scheme)
	href.WriteString("://")
	href.WriteString(host)
	if port != "" {
		href.WriteByte(':')
		href.WriteString(port)
	}
	writePath(&href, rest)
	if hasQuery {
		href.WriteByte('?')
		percentEncode(&href, query, keepInQuery, true)
	}
	if hasFragment && fragment != "" {
		href.WriteByte('#')
		percentEncode(&href, fragment, keepInFragment, false)
	}

	// The string is now in a form net/url round-trips exactly; parsing it
	// gives callers the usual *url.URL without a second set of rules.
	u, perr := url.Parse(href.String())
	if perr != nil {
		e := apierr.URL(raw, "The URL %s is not valid: glimpse could not normalise it; check it in a browser's address bar.", apierr.Show(raw))
		e.Err = perr
		return nil, e
	}
	return u, nil
}

// CheckTarget applies the address rule to the target's host: every address
// it resolves to must be public unicast (or inside the policy's development
// allow-list). A refused address gives EFORBIDDENURL, a host that does not
// resolve EINVALURL, and a context that ends first ETIMEOUT. A nil resolver
// means the system's.
func CheckTarget(ctx context.Context, p *guard.Policy, r guard.Resolver, u *url.URL) error {
	if r == nil {
		r = net.DefaultResolver
	}
	_, err := p.Resolve(ctx, r, u.Hostname())
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		e := apierr.From(ctxErr)
		e.Err = err
		return e
	}
	target := u.String()
	var refused *guard.RefusedError
	if errors.As(err, &refused) {
		e := apierr.Forbidden(target, refused.Reason)
		e.Err = err
		return e
	}
	var lookup *guard.LookupError
	if errors.As(err, &lookup) {
		e := apierr.Unresolvable(target)
		var dnsErr *net.DNSError
		if errors.As(lookup.Err, &dnsErr) && dnsErr.IsTimeout {
			e.Message = "The URL " + apierr.Show(target) + " could not be checked: looking up its host " + apierr.Show(u.Hostname()) +
				" timed out; try again in a moment."
		}
		e.Err = err
		return e
	}
	return apierr.Fatal(err)
}

// splitScheme returns the lower-cased scheme and what follows its colon.
// ok is false when s does not start with a scheme, and also for spellings
// like `example.com:8080/x` or `localhost:3000`, which are host-and-port
// without a protocol rather than a scheme named `example.com`.
func splitScheme(s string) (scheme, rest string, ok bool) {
	if s == "" || !isASCIIAlpha(s[0]) {
		return "", "", false
	}
	i := 1
	for i < len(s) && (isASCIIAlpha(s[i]) || isASCIIDigit(s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.') {
		i++
	}
	if i == len(s) || s[i] != ':' {
		return "", "", false
	}
	scheme, rest = strings.ToLower(s[:i]), s[i+1:]
	if strings.IndexByte(scheme, '.') >= 0 || (rest != "" && isASCIIDigit(rest[0])) {
		return "", "", false
	}
	return scheme, rest, true
}

// splitHostPort separates the host from the port and validates the port:
// digits only, 1 to 65535, leading zeros dropped as browsers do.
func splitHostPort(raw, authority string) (host, port string, err error) {
	host = authority
	if strings.HasPrefix(authority, "[") {
		end := strings.IndexByte(authority, ']')
		if end < 0 {
			return "", "", apierr.URL(raw, "The URL %s is not valid: its IPv6 host %s has no closing `]`.", apierr.Show(raw), apierr.Show(authority))
		}
		host = authority[:end+1]
		after := authority[end+1:]
		if after != "" && after[0] != ':' {
			return "", "", apierr.URL(raw, "The URL %s is not valid: after the IPv6 host %s only `:` and a port may follow.", apierr.Show(raw), apierr.Show(host))
		}
		if after != "" {
			port = after[1:]
		} else {
			return host, "", nil
		}
	} else if i := strings.IndexByte(authority, ':'); i >= 0 {
		host, port = authority[:i], authority[i+1:]
	} else {
		return host, "", nil
	}
	if port == "" {
		return host, "", nil
	}
	for i := 0; i < len(port); i++ {
		if !isASCIIDigit(port[i]) {
			return "", "", apierr.URL(raw, "The URL %s is not valid: its port %s must be a number from 1 to 65535.", apierr.Show(raw), apierr.Show(port))
		}
	}
	digits := strings.TrimLeft(port, "0")
	n, perr := strconv.Atoi(digits)
	if digits == "" || len(digits) > 5 || perr != nil || n < 1 || n > 65535 {
		return "", "", apierr.URL(raw, "The URL %s is not valid: its port %s must be a number from 1 to 65535.", apierr.Show(raw), apierr.Show(port))
	}
	return host, strconv.Itoa(n), nil
}

// parseHost returns the canonical host: `[v6]`, a dotted-quad IPv4 address,
// or a lower-case ASCII domain (punycode for international names).
func parseHost(raw, h string) (string, error) {
	if strings.HasPrefix(h, "[") {
		inner := h[1 : len(h)-1]
		// netip accepts zones (`%eth0`) and bare IPv4 here; URLs allow neither.
		addr, err := netip.ParseAddr(inner)
		if err != nil || !addr.Is6() || addr.Zone() != "" || strings.IndexByte(inner, '%') >= 0 {
			return "", apierr.URL(raw, "The URL %s is not valid: its host %s is not an IPv6 address.", apierr.Show(raw), apierr.Show(h))
		}
		return "[" + formatIPv6(addr) + "]", nil
	}
	decoded := percentDecode(h)
	if !utf8.ValidString(decoded) {
		return "", apierr.URL(raw, "The URL %s is not valid: its host %s decodes to bytes that are not UTF-8.", apierr.Show(raw), apierr.Show(h))
	}
	ascii, err := domainToASCII.ToASCII(decoded)
	if err != nil {
		return "", apierr.URL(raw, "The URL %s is not valid: its host %s is not a valid domain name; check its spelling.", apierr.Show(raw), apierr.Show(decoded))
	}
	if endsInNumber(ascii) {
		addr, ok := guard.ParseHostIP(ascii)
		if !ok {
			return "", apierr.URL(raw, "The URL %s is not valid: its host %s ends in a number but is not an IPv4 address; write an address as four numbers from 0 to 255, such as `93.184.215.14`.", apierr.Show(raw), apierr.Show(decoded))
		}
		if addr.Is4In6() {
			addr = addr.Unmap()
		}
		if addr.Is6() {
			return "[" + formatIPv6(addr) + "]", nil
		}
		return addr.String(), nil
	}
	if msg := checkDomain(ascii); msg != "" {
		return "", apierr.URL(raw, "The URL %s is not valid: its host %s %s.", apierr.Show(raw), apierr.Show(decoded), msg)
	}
	return ascii, nil
}

// checkDomain narrows WHATWG's permissive hosts to names DNS can hold and
// returns what is wrong, or "" when the name is fine.
func checkDomain(d string) string {
	name := strings.TrimSuffix(d, ".")
	if name == "" {
		return "has no name"
	}
	if len(name) > 253 {
		return "is longer than the 253 bytes a domain name may have"
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" {
			return "has an empty label (two dots in a row, or a leading dot)"
		}
		if len(label) > 63 {
			return "has a label longer than the 63 bytes DNS allows"
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !isASCIIAlpha(c) && !isASCIIDigit(c) && c != '-' && c != '_' {
				return "contains " + apierr.Show(string(rune(c))) + ", which a host name cannot contain"
			}
		}
	}
	return ""
}

// endsInNumber is the WHATWG test that sends a host to the IPv4 parser: its
// last label (a trailing dot aside) is decimal digits or 0x-hex.
func endsInNumber(h string) bool {
	parts := strings.Split(h, ".")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last == "" {
		return false
	}
	allDigits := true
	for i := 0; i < len(last); i++ {
		if !isASCIIDigit(last[i]) {
			allDigits = false
			break
		}
	}
	if allDigits {
		return true
	}
	if len(last) >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X') {
		for i := 2; i < len(last); i++ {
			if !isHex(last[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// formatIPv6 is the WHATWG IPv6 serialiser: lower-case hex, the first
// longest run of two or more zero pieces compressed, and no dotted IPv4
// tail, so every spelling of an address gives one string.
func formatIPv6(a netip.Addr) string {
	b := a.As16()
	var pieces [8]uint16
	for i := range pieces {
		pieces[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	compress, best := -1, 1
	for i := 0; i < 8; {
		if pieces[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && pieces[j] == 0 {
			j++
		}
		if j-i > best {
			compress, best = i, j-i
		}
		i = j
	}
	var s strings.Builder
	ignoreZero := false
	for i, p := range pieces {
		if ignoreZero && p == 0 {
			continue
		}
		ignoreZero = false
		if i == compress {
			if i == 0 {
				s.WriteString("::")
			} else {
				s.WriteByte(':')
			}
			ignoreZero = true
			continue
		}
		s.WriteString(strconv.FormatUint(uint64(p), 16))
		if i != 7 {
			s.WriteByte(':')
		}
	}
	return s.String()
}

// writePath writes the path of a special URL: `\` is a separator, `.` and
// `..` segments (also as %2e) are resolved, and an empty path is `/`.
func writePath(b *strings.Builder, p string) {
	if p != "" && (p[0] == '/' || p[0] == '\\') {
		p = p[1:]
	}
	segments := splitPath(p)
	out := make([]string, 0, len(segments))
	for i, seg := range segments {
		last := i == len(segments)-1
		switch {
		case isDoubleDot(seg):
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		case isSingleDot(seg):
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, seg)
		}
	}
	for _, seg := range out {
		b.WriteByte('/')
		percentEncode(b, seg, keepInPath, false)
	}
}

// splitPath splits on both separators of special URLs.
func splitPath(p string) []string {
	var segs []string
	start := 0
	for i := 0; i < len(p); i++ {
		if p[i] == '/' || p[i] == '\\' {
			segs = append(segs, p[start:i])
			start = i + 1
		}
	}
	return append(segs, p[start:])
}

func isSingleDot(s string) bool {
	return s == "." || strings.EqualFold(s, "%2e")
}

func isDoubleDot(s string) bool {
	switch strings.ToLower(s) {
	case "..", ".%2e", "%2e.", "%2e%2e":
		return true
	}
	return false
}

// The sets of bytes left as they are; everything else is percent-encoded.
// They are WHATWG's sets widened to what net/url keeps verbatim (RFC 3986
// pchar), so the *url.URL prints exactly what was built: an escape that
// net/url does not recognise makes it re-encode the whole path, which would
// silently turn `%2F` into `/`.
var (
	keepInPath     = byteSet("!$&'()*+,;=:@[]-._~")
	keepInFragment = byteSet("!$&'()*+,;=:@[]-._~/?")
	// The query is the target's own business: only what cannot travel in a
	// request line is encoded (WHATWG's special-query set), never `%`.
	keepInQuery = func() (k [256]bool) {
		for c := 0x21; c < 0x7f; c++ {
			k[c] = true
		}
		for _, c := range []byte("\"#<>'") {
			k[c] = false
		}
		return k
	}()
)

func byteSet(extra string) (k [256]bool) {
	for c := 0; c < 256; c++ {
		k[c] = isASCIIAlpha(byte(c)) || isASCIIDigit(byte(c))
	}
	for i := 0; i < len(extra); i++ {
		k[extra[i]] = true
	}
	return k
}

// percentEncode writes s, encoding bytes outside keep. A `%` that starts a
// valid escape is kept; a stray one becomes %25, except in the query when
// keepStrayPercent is set, where the target gets exactly what it was given.
func percentEncode(b *strings.Builder, s string, keep [256]bool, keepStrayPercent bool) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && (keepStrayPercent || (i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]))):
			b.WriteByte('%')
		case c != '%' && keep[c]:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
}

// percentDecode decodes %XX escapes and leaves a `%` that starts none as it
// is, as the WHATWG URL and form parsers do.
func percentDecode(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

func isASCIIAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isASCIIDigit(c byte) bool { return c >= '0' && c <= '9' }
func isHex(c byte) bool        { return isASCIIDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }

func unhex(c byte) byte {
	switch {
	case isASCIIDigit(c):
		return c - '0'
	default:
		return c | 0x20 - 'a' + 10
	}
}
