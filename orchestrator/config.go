package orchestrator

import (
	"flag"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/glimpse/glimpse/sidecar/guard"
)

// Config is everything the front service can be told. Every field has a
// flag and an environment variable twin (--storage-dir ⇔ GLIMPSE_STORAGE_DIR).
type Config struct {
	Addr          string
	Sidecars      string
	SidecarAddr   string
	ChromePath    string
	AllowTargets  []netip.Prefix
	StorageDir    string
	PublicBaseURL string

	S3Endpoint  string
	S3Bucket    string
	S3AccessKey string
	S3SecretKey string
	S3Region    string
	S3Secure    bool

	Region             string
	PlansFile          string
	TrustedProxies     []netip.Prefix
	LogFormat          string
	LogLevel           string
	RecycleAfter       int
	SidecarConcurrency int
	QueueSize          int
	Warm               int
	MaxTimeout         time.Duration
	CacheBytes         int64
	ShutdownGrace      time.Duration
	Pprof              bool
}

// setting is one configuration entry: its flag, its variable and how to
// read it.
type setting struct {
	flag, env, usage, def string
	set                   func(string) error
}

func (c *Config) settings() []setting {
	str := func(p *string) func(string) error { return func(v string) error { *p = v; return nil } }
	integer := func(p *int, min int) func(string) error {
		return func(v string) error {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < min {
				return fmt.Errorf("a whole number of at least %d", min)
			}
			*p = n
			return nil
		}
	}
	duration := func(p *time.Duration) func(string) error {
		return func(v string) error {
			d, err := time.ParseDuration(strings.TrimSpace(v))
			if err != nil || d <= 0 {
				return fmt.Errorf("a positive duration such as 30s or 2m")
			}
			*p = d
			return nil
		}
	}
	boolean := func(p *bool) func(string) error {
		return func(v string) error {
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("true or false")
			}
			*p = b
			return nil
		}
	}
	prefixes := func(p *[]netip.Prefix) func(string) error {
		return func(v string) error {
			if strings.TrimSpace(v) == "" {
				*p = nil
				return nil
			}
			ps, err := guard.ParsePrefixes(v)
			if err != nil {
				return fmt.Errorf("comma-separated CIDRs such as 127.0.0.0/8,::1/128 (%v)", err)
			}
			*p = ps
			return nil
		}
	}
	oneOf := func(p *string, allowed ...string) func(string) error {
		return func(v string) error {
			for _, a := range allowed {
				if v == a {
					*p = v
					return nil
				}
			}
			return fmt.Errorf("one of %s", strings.Join(allowed, ", "))
		}
	}
	return []setting{
		{"addr", "GLIMPSE_ADDR", "address the HTTP API listens on", ":3000", str(&c.Addr)},
		{"sidecars", "GLIMPSE_SIDECARS", "sidecars as host:port,… or a DNS name with port that resolves to many; empty starts an embedded sidecar", "", str(&c.Sidecars)},
		{"sidecar-addr", "GLIMPSE_SIDECAR_ADDR", "listen address of the embedded sidecar", "127.0.0.1:0", str(&c.SidecarAddr)},
		{"chrome-path", "GLIMPSE_CHROME_PATH", "Chromium binary of the embedded sidecar (default: the first one found)", "", str(&c.ChromePath)},
		{"allow-targets", "GLIMPSE_ALLOW_TARGETS", "CIDRs exempt from the public-address rule, for development and tests only", "", prefixes(&c.AllowTargets)},
		{"storage-dir", "GLIMPSE_STORAGE_DIR", "directory for stored files when no S3 endpoint is set", "./data", str(&c.StorageDir)},
		{"public-base-url", "GLIMPSE_PUBLIC_BASE_URL", "public base URL of stored files (CDN or bucket); default: the bucket URL, or this service's /files/", "", str(&c.PublicBaseURL)},
		{"s3-endpoint", "GLIMPSE_S3_ENDPOINT", "MinIO/S3 endpoint host:port; set → used instead of the directory", "", str(&c.S3Endpoint)},
		{"s3-bucket", "GLIMPSE_S3_BUCKET", "bucket for stored files", "glimpse", str(&c.S3Bucket)},
		{"s3-access-key", "GLIMPSE_S3_ACCESS_KEY", "S3 access key", "", str(&c.S3AccessKey)},
		{"s3-secret-key", "GLIMPSE_S3_SECRET_KEY", "S3 secret key", "", str(&c.S3SecretKey)},
		{"s3-region", "GLIMPSE_S3_REGION", "S3 region", "us-east-1", str(&c.S3Region)},
		{"s3-secure", "GLIMPSE_S3_SECURE", "use https to reach the S3 endpoint", "false", boolean(&c.S3Secure)},
		{"region", "GLIMPSE_REGION", "prefix of x-request-id", "local", str(&c.Region)},
		{"plans", "GLIMPSE_PLANS", "plans and API keys file (YAML or JSON); default: one anonymous plan", "", str(&c.PlansFile)},
		{"trusted-proxies", "GLIMPSE_TRUSTED_PROXIES", "CIDRs of proxies whose X-Forwarded-For names the client", "", prefixes(&c.TrustedProxies)},
		{"log-format", "GLIMPSE_LOG_FORMAT", "log format: text or json", "text", oneOf(&c.LogFormat, "text", "json")},
		{"log-level", "GLIMPSE_LOG_LEVEL", "log level: debug, info, warn or error", "info", oneOf(&c.LogLevel, "debug", "info", "warn", "error")},
		{"recycle-after", "GLIMPSE_RECYCLE_AFTER", "embedded sidecar: restart Chromium after this many pages (0 never)", "500", integer(&c.RecycleAfter, 0)},
		{"sidecar-concurrency", "GLIMPSE_SIDECAR_CONCURRENCY", "pages one sidecar renders at once", "4", integer(&c.SidecarConcurrency, 1)},
		{"queue-size", "GLIMPSE_QUEUE_SIZE", "requests that may wait for a browser before EBUSY", "64", integer(&c.QueueSize, 1)},
		{"warm", "GLIMPSE_WARM", "ready browser contexts kept per sidecar, in slots no render uses", "2", integer(&c.Warm, 0)},
		{"max-timeout", "GLIMPSE_MAX_TIMEOUT", "largest `timeout` a caller may ask for", "60s", duration(&c.MaxTimeout)},
		{"cache-bytes", "GLIMPSE_CACHE_BYTES", "memory for cached answers, in bytes", "67108864", func(v string) error {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n < 0 {
				return fmt.Errorf("a number of bytes, 0 or more")
			}
			c.CacheBytes = n
			return nil
		}},
		{"shutdown-grace", "GLIMPSE_SHUTDOWN_GRACE", "how long in-flight requests may take to finish on SIGTERM", "30s", duration(&c.ShutdownGrace)},
		{"pprof", "GLIMPSE_PPROF", "serve /debug/pprof (do not expose publicly)", "false", boolean(&c.Pprof)},
	}
}

// LoadConfig reads defaults, then the environment, then flags. A bad value
// names the flag or variable, the value and what is accepted.
func LoadConfig(args []string, getenv func(string) string, usageOut io.Writer) (Config, error) {
	var c Config
	ss := c.settings()
	for _, s := range ss {
		if err := s.set(s.def); err != nil {
			return c, fmt.Errorf("default of --%s: %v", s.flag, err)
		}
	}
	for _, s := range ss {
		if v := getenv(s.env); v != "" {
			if err := s.set(v); err != nil {
				return c, fmt.Errorf("%s=%q is not valid: expected %v", s.env, v, err)
			}
		}
	}
	fs := flag.NewFlagSet("orchestrator", flag.ContinueOnError)
	fs.SetOutput(usageOut)
	for _, s := range ss {
		fs.Func(s.flag, fmt.Sprintf("%s (%s, default %q)", s.usage, s.env, s.def), func(v string) error {
			if err := s.set(v); err != nil {
				return fmt.Errorf("expected %v", err)
			}
			return nil
		})
	}
	fs.Usage = func() {
		fmt.Fprintln(usageOut, "orchestrator: the glimpse HTTP API. Every flag has an environment variable twin.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.S3Endpoint != "" && (c.S3AccessKey == "" || c.S3SecretKey == "") {
		return c, fmt.Errorf("GLIMPSE_S3_ENDPOINT is set but GLIMPSE_S3_ACCESS_KEY or GLIMPSE_S3_SECRET_KEY is empty; give both")
	}
	return c, nil
}
