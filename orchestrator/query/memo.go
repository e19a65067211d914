package query

import "sync"

// Memo remembers recent queries parsed into requests and their cache
// keys. A cache hit is otherwise mostly parsing and hashing the same query
// again (about a sixth of its CPU); a popular link is asked for in the
// same words many times.
//
// A parsed Request is never changed after ParseRequest, so one may serve
// many callers at once. Queries that forward headers are not remembered:
// their values are a caller's secrets and stay only as long as the request.
type Memo struct {
	mu sync.RWMutex
	m  map[string]parsed
}

type parsed struct {
	req *Request
	key string
}

// parseMemoSize bounds the memo. When it is full it starts again empty,
// which costs one parse per query then and keeps the memo simple.
const (
	parseMemoSize     = 4096
	parseMemoMaxQuery = 2048 // longer queries are parsed every time
)

// Parse returns the request and cache key for a query, from the memo when
// it was seen. Errors are not remembered.
func (pm *Memo) Parse(raw string, limits Limits) (*Request, string, error) {
	pm.mu.RLock()
	p, ok := pm.m[raw]
	pm.mu.RUnlock()
	if ok {
		return p.req, p.key, nil
	}
	req, err := Parse(raw, limits)
	if err != nil {
		return nil, "", err
	}
	key := Key(req)
	if len(req.Headers) == 0 && req.Proxy == nil && len(raw) <= parseMemoMaxQuery {
		pm.mu.Lock()
		if pm.m == nil || len(pm.m) >= parseMemoSize {
			pm.m = make(map[string]parsed, 256)
		}
		pm.m[raw] = parsed{req, key}
		pm.mu.Unlock()
	}
	return req, key, nil
}
