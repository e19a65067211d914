package sidecar

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strings"
)

// MinTokenLength is the shortest sidecar token the sidecar binary accepts:
// the secret is all that stands between the cluster network and a browser.
const MinTokenLength = 16

// NewToken returns a random sidecar token (128 bits, base32), for a process
// that runs a sidecar and its pool together and so needs no configured one.
func NewToken() string { return rand.Text() }

// secret is the sidecar token in the form compared with what callers send.
// Only a digest is kept: comparing digests of equal length in constant time
// tells a caller nothing about the token's length or content.
type secret struct {
	sum [sha256.Size]byte
	set bool
}

func newSecret(token string) secret {
	if token == "" {
		return secret{}
	}
	return secret{sum: sha256.Sum256([]byte(token)), set: true}
}

// required reports whether callers must present the token.
func (s secret) required() bool { return s.set }

func (s secret) matches(given string) bool {
	if !s.set {
		return true
	}
	sum := sha256.Sum256([]byte(given))
	return subtle.ConstantTimeCompare(sum[:], s.sum[:]) == 1
}

// bearer reports whether an Authorization header value carries the token.
func (s secret) bearer(header string) bool {
	if !s.set {
		return true
	}
	scheme, token, ok := strings.Cut(header, " ")
	return ok && strings.EqualFold(scheme, "Bearer") && s.matches(strings.TrimSpace(token))
}

// proxy reports whether a Proxy-Authorization header value carries the
// token: as a Bearer token, or as the password of Basic credentials with
// any user name, which is what HTTP clients send for a proxy URL such as
// http://glimpse:<token>@sidecar:9230 (Go's http.Transport among them).
func (s secret) proxy(header string) bool {
	if !s.set {
		return true
	}
	scheme, rest, ok := strings.Cut(header, " ")
	if !ok {
		return false
	}
	switch {
	case strings.EqualFold(scheme, "Bearer"):
		return s.matches(strings.TrimSpace(rest))
	case strings.EqualFold(scheme, "Basic"):
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(rest))
		if err != nil {
			return false
		}
		_, password, ok := strings.Cut(string(raw), ":")
		return ok && s.matches(password)
	}
	return false
}

// requireToken answers 401 to a request without the sidecar token and
// passes the others to h. The Authorization header is removed either way,
// so the secret travels no further than this check.
func (s *Sidecar) requireToken(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok := s.secret.bearer(r.Header.Get("Authorization"))
		r.Header.Del("Authorization")
		if !ok {
			s.authRefusals.Add(1)
			s.logger.Debug("A request without the sidecar token was refused.", "path", r.URL.Path, "client", r.RemoteAddr)
			w.Header().Set("WWW-Authenticate", `Bearer realm="glimpse-sidecar"`)
			http.Error(w, "This sidecar endpoint needs the sidecar token: send Authorization: Bearer <token>, the value of GLIMPSE_SIDECAR_TOKEN.", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// AuthRefusals counts the requests refused for a missing or wrong token.
func (s *Sidecar) AuthRefusals() int64 { return s.authRefusals.Load() }
