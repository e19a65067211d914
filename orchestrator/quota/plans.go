package quota

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Plan is a quota: Limit requests per Window.
type Plan struct {
	Name   string        `yaml:"name"`
	Limit  int           `yaml:"limit"`
	Window time.Duration `yaml:"-"`
	RawWin string        `yaml:"window"`
}

type planKey struct {
	Key       string `yaml:"key"`
	KeySHA256 string `yaml:"key_sha256"`
	Plan      string `yaml:"plan"`
}

type plansFile struct {
	Anonymous *Plan     `yaml:"anonymous"`
	Plans     []Plan    `yaml:"plans"`
	Keys      []planKey `yaml:"keys"`
}

// DefaultAnonymousPlan applies to callers without x-api-key when no plans
// file says otherwise.
var DefaultAnonymousPlan = Plan{Name: "free", Limit: 1000, Window: 24 * time.Hour}

// Plans maps API keys to plans. Keys are held only as SHA-256 digests, so
// neither memory dumps nor logs carry them.
type Plans struct {
	Anonymous Plan
	keys      map[[32]byte]*Plan
}

// Names lists every plan a caller can be on, the anonymous one first, so
// metrics can start a series for each.
func (p *Plans) Names() []string {
	names := []string{p.Anonymous.Name}
	for _, pl := range p.keys {
		if !slices.Contains(names, pl.Name) {
			names = append(names, pl.Name)
		}
	}
	return names
}

// LoadPlans reads a plans file (YAML, so JSON too); "" gives the default.
func LoadPlans(path string) (*Plans, error) {
	if path == "" {
		return &Plans{Anonymous: DefaultAnonymousPlan, keys: map[[32]byte]*Plan{}}, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the plans file named by GLIMPSE_PLANS: %w", err)
	}
	return ParsePlans(b)
}

// ParsePlans reads the plans file format of
// docs/configuration.md#plans-and-quotas.
func ParsePlans(b []byte) (*Plans, error) {
	var f plansFile
	if err := yaml.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("the plans file is not valid YAML or JSON: %w", err)
	}
	p := &Plans{Anonymous: DefaultAnonymousPlan, keys: map[[32]byte]*Plan{}}
	check := func(pl *Plan, where string) error {
		if pl.Name == "" {
			return fmt.Errorf("%s has no name", where)
		}
		if pl.Limit < 1 {
			return fmt.Errorf("plan %q: limit must be a whole number of at least 1, got %d", pl.Name, pl.Limit)
		}
		d, err := time.ParseDuration(pl.RawWin)
		if err != nil || d < time.Second {
			return fmt.Errorf("plan %q: window must be a duration such as 1h or 24h, got %q", pl.Name, pl.RawWin)
		}
		pl.Window = d
		return nil
	}
	if f.Anonymous != nil {
		if err := check(f.Anonymous, "the anonymous plan"); err != nil {
			return nil, err
		}
		p.Anonymous = *f.Anonymous
	}
	byName := map[string]*Plan{}
	for i := range f.Plans {
		pl := &f.Plans[i]
		if err := check(pl, fmt.Sprintf("plan number %d", i+1)); err != nil {
			return nil, err
		}
		if _, dup := byName[pl.Name]; dup {
			return nil, fmt.Errorf("plan %q is defined twice", pl.Name)
		}
		byName[pl.Name] = pl
	}
	seen := map[[32]byte]int{}
	for i, k := range f.Keys {
		pl, ok := byName[k.Plan]
		if !ok {
			return nil, fmt.Errorf("key number %d names plan %q, which the file does not define", i+1, k.Plan)
		}
		var sum [32]byte
		switch {
		case k.Key != "" && k.KeySHA256 != "":
			return nil, fmt.Errorf("key number %d gives both key and key_sha256; give one", i+1)
		case k.Key != "":
			sum = sha256.Sum256([]byte(k.Key))
		case k.KeySHA256 != "":
			raw, err := hex.DecodeString(strings.ToLower(strings.TrimSpace(k.KeySHA256)))
			if err != nil || len(raw) != 32 {
				return nil, fmt.Errorf("key number %d: key_sha256 must be 64 hex digits", i+1)
			}
			copy(sum[:], raw)
		default:
			return nil, fmt.Errorf("key number %d has neither key nor key_sha256", i+1)
		}
		if first, dup := seen[sum]; dup {
			return nil, fmt.Errorf("key number %d repeats key number %d; list each key once", i+1, first)
		}
		seen[sum] = i + 1
		p.keys[sum] = pl
	}
	return p, nil
}

// Lookup finds the plan of an API key. The returned id identifies the key
// in quota counters without being the key.
func (p *Plans) Lookup(key string) (plan *Plan, id string, ok bool) {
	sum := sha256.Sum256([]byte(key))
	pl, ok := p.keys[sum]
	if !ok {
		return nil, "", false
	}
	return pl, "key:" + hex.EncodeToString(sum[:8]), true
}
