package orchestrator

import (
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/orchestrator/quota"
	"github.com/glimpse/glimpse/sidecar/envflag"
	"github.com/glimpse/glimpse/sidecar/guard"
	"github.com/glimpse/glimpse/sidecar/logging"
)

// Config is everything the front service can be told. Every field has a
// flag and an environment variable twin (--storage-dir ⇔ GLIMPSE_STORAGE_DIR).
type Config struct {
	Addr          string
	Sidecars      string
	SidecarToken  string
	SidecarAddr   string
	ChromePath    string
	AllowTargets  []netip.Prefix
	StorageDir    string
	PublicBaseURL string

	S3Endpoint   string
	S3Bucket     string
	S3AccessKey  string
	S3SecretKey  string
	S3Region     string
	S3Secure     bool
	S3ExpireDays int

	StorageMaxBytes int64
	StorageMaxAge   time.Duration
	StorageMinAge   time.Duration

	Region             string
	DocsURL            string
	PlansFile          string
	RedisURL           string
	TrustedProxies     []netip.Prefix
	LogFormat          string
	LogLevel           string
	RecycleAfter       int
	SidecarConcurrency int
	QueueSize          int
	Warm               int
	MaxTimeout         time.Duration
	CacheBytes         int64
	MaxDataBytes       int
	MaxFileBytes       int64
	PageReadLimit      int64
	AllowProxy         bool     // callers may name a `proxy`
	WallProxy          *url.URL // the proxy a render a bot wall answered is tried once more through

	// FileVersion, when set, names the files of every render; tests fix
	// it to know a file's name before it is stored. Not a setting.
	FileVersion   func() string
	ShutdownGrace time.Duration
	Pprof         bool
	FullRenders   bool
	MCP           bool // serve the MCP endpoint at /mcp
	Playground    bool // serve the playground page at / to browsers

	// AdblockHosts are blocked by the embedded sidecar's guard on top of
	// the ad-block list, each with its subdomains; tests serve their ads
	// from names such as tracker.localhost, which resolve to loopback
	// without DNS and so cannot be on a real list. Not a setting.
	AdblockHosts []string
}

func (c *Config) settings() []envflag.Setting {
	str, integer, duration, boolean := envflag.String, envflag.Int, envflag.Duration, envflag.Bool
	prefixes := func(p *[]netip.Prefix) func(string) error { return envflag.Prefixes(p, guard.ParsePrefixes) }
	return []envflag.Setting{
		{Flag: "addr", Env: "GLIMPSE_ADDR", Usage: "address the HTTP API listens on", Default: ":3000", Parse: str(&c.Addr)},
		{Flag: "sidecars", Env: "GLIMPSE_SIDECARS", Usage: "sidecars as host:port,… or a DNS name with port that resolves to many; empty starts an embedded sidecar", Default: "", Parse: str(&c.Sidecars)},
		{Flag: "sidecar-token", Env: "GLIMPSE_SIDECAR_TOKEN", Usage: "the sidecars' shared secret; required with GLIMPSE_SIDECARS, generated in process for the embedded sidecar", Default: "", Parse: str(&c.SidecarToken), Secret: true},
		{Flag: "sidecar-addr", Env: "GLIMPSE_SIDECAR_ADDR", Usage: "listen address of the embedded sidecar", Default: "127.0.0.1:0", Parse: str(&c.SidecarAddr)},
		{Flag: "chrome-path", Env: "GLIMPSE_CHROME_PATH", Usage: "Chromium binary of the embedded sidecar (default: the first one found)", Default: "", Parse: str(&c.ChromePath)},
		{Flag: "allow-targets", Env: "GLIMPSE_ALLOW_TARGETS", Usage: "CIDRs exempt from the public-address rule, for development and tests only", Default: "", Parse: prefixes(&c.AllowTargets)},
		{Flag: "storage-dir", Env: "GLIMPSE_STORAGE_DIR", Usage: "directory for stored files when no S3 endpoint is set", Default: "./data", Parse: str(&c.StorageDir)},
		{Flag: "public-base-url", Env: "GLIMPSE_PUBLIC_BASE_URL", Usage: "address stored files are fetched from: this service, a CDN in front of it, or the bucket; a file is at this URL + files/...; default: the bucket with S3, this service with a directory", Default: "", Parse: str(&c.PublicBaseURL)},
		{Flag: "s3-endpoint", Env: "GLIMPSE_S3_ENDPOINT", Usage: "MinIO/S3 endpoint host:port; set → used instead of the directory", Default: "", Parse: str(&c.S3Endpoint)},
		{Flag: "s3-bucket", Env: "GLIMPSE_S3_BUCKET", Usage: "bucket for stored files", Default: "glimpse", Parse: str(&c.S3Bucket)},
		{Flag: "s3-access-key", Env: "GLIMPSE_S3_ACCESS_KEY", Usage: "S3 access key", Default: "", Parse: str(&c.S3AccessKey)},
		{Flag: "s3-secret-key", Env: "GLIMPSE_S3_SECRET_KEY", Usage: "S3 secret key", Default: "", Parse: str(&c.S3SecretKey)},
		{Flag: "s3-region", Env: "GLIMPSE_S3_REGION", Usage: "S3 region", Default: "us-east-1", Parse: str(&c.S3Region)},
		{Flag: "s3-secure", Env: "GLIMPSE_S3_SECURE", Usage: "use https to reach the S3 endpoint", Default: "false", Parse: boolean(&c.S3Secure)},
		{Flag: "s3-expire-days", Env: "GLIMPSE_S3_EXPIRE_DAYS", Usage: "days after which the bucket's lifecycle rules delete cached answers and files (at least the longest ttl plus staleTtl)", Default: "63", Parse: integer(&c.S3ExpireDays, 1)},
		{Flag: "storage-max-bytes", Env: "GLIMPSE_STORAGE_MAX_BYTES", Usage: "byte budget of the local storage directory, oldest first past it; 0 for none", Default: "0", Parse: envflag.Int64(&c.StorageMaxBytes, 0)},
		{Flag: "storage-max-age", Env: "GLIMPSE_STORAGE_MAX_AGE", Usage: "how long the local storage directory keeps an object", Default: "1512h", Parse: duration(&c.StorageMaxAge)},
		{Flag: "storage-min-age", Env: "GLIMPSE_STORAGE_MIN_AGE", Usage: "no object younger than this is swept from the local storage directory", Default: "1h", Parse: duration(&c.StorageMinAge)},
		{Flag: "region", Env: "GLIMPSE_REGION", Usage: "prefix of x-request-id", Default: "local", Parse: str(&c.Region)},
		{Flag: "docs-url", Env: "GLIMPSE_DOCS_URL", Usage: "page documenting the error codes, one anchor per code, that every error's `more` links to; default: the page this service serves at " + apierr.DocsPath, Default: "", Parse: docsURL(&c.DocsURL)},
		{Flag: "plans", Env: "GLIMPSE_PLANS", Usage: "plans and API keys file (YAML or JSON); default: one anonymous plan", Default: "", Parse: str(&c.PlansFile)},
		{Flag: "redis-url", Env: "GLIMPSE_REDIS_URL", Usage: "Redis that counts quotas for every replica, redis://[:password@]host:port/db or rediss://; empty: each replica counts in its own memory, from zero after a restart", Default: "", Parse: redisURL(&c.RedisURL), Secret: true},
		{Flag: "trusted-proxies", Env: "GLIMPSE_TRUSTED_PROXIES", Usage: "CIDRs of proxies whose X-Forwarded-For names the client", Default: "", Parse: prefixes(&c.TrustedProxies)},
		{Flag: "log-format", Env: "GLIMPSE_LOG_FORMAT", Usage: "log format: text or json", Default: "text", Parse: envflag.OneOf(&c.LogFormat, logging.Formats...)},
		{Flag: "log-level", Env: "GLIMPSE_LOG_LEVEL", Usage: "log level: debug, info, warn or error", Default: "info", Parse: envflag.OneOf(&c.LogLevel, logging.Levels...)},
		{Flag: "recycle-after", Env: "GLIMPSE_RECYCLE_AFTER", Usage: "embedded sidecar: restart Chromium after this many pages (0 never)", Default: "500", Parse: integer(&c.RecycleAfter, 0)},
		{Flag: "sidecar-concurrency", Env: "GLIMPSE_SIDECAR_CONCURRENCY", Usage: "pages one sidecar renders at once", Default: "4", Parse: integer(&c.SidecarConcurrency, 1)},
		{Flag: "queue-size", Env: "GLIMPSE_QUEUE_SIZE", Usage: "requests that may wait for a browser before EBUSY", Default: "64", Parse: integer(&c.QueueSize, 1)},
		{Flag: "warm", Env: "GLIMPSE_WARM", Usage: "ready browser contexts kept per sidecar, in slots no render uses", Default: "2", Parse: integer(&c.Warm, 0)},
		{Flag: "max-timeout", Env: "GLIMPSE_MAX_TIMEOUT", Usage: "largest `timeout` a caller may ask for", Default: "60s", Parse: duration(&c.MaxTimeout)},
		{Flag: "cache-bytes", Env: "GLIMPSE_CACHE_BYTES", Usage: "memory for cached answers, in bytes", Default: "67108864", Parse: envflag.Int64(&c.CacheBytes, 0)},
		{Flag: "max-data-bytes", Env: "GLIMPSE_MAX_DATA_BYTES", Usage: "largest total of values the `data` rules may put in one answer, in bytes", Default: "4194304", Parse: integer(&c.MaxDataBytes, 1024)},
		{Flag: "max-file-bytes", Env: "GLIMPSE_MAX_FILE_BYTES", Usage: "largest PDF or screenshot stored, in bytes", Default: "268435456", Parse: envflag.Int64(&c.MaxFileBytes, 1024)},
		{Flag: "page-read-limit", Env: "GLIMPSE_PAGE_READ_LIMIT", Usage: "largest DevTools message one page may make its browser send, in bytes; a page over it fails alone with EFETCH", Default: "268435456", Parse: envflag.Int64(&c.PageReadLimit, 1<<20)},
		{Flag: "shutdown-grace", Env: "GLIMPSE_SHUTDOWN_GRACE", Usage: "how long in-flight requests may take to finish on SIGTERM", Default: "30s", Parse: duration(&c.ShutdownGrace)},
		{Flag: "full-renders", Env: "GLIMPSE_FULL_RENDERS", Usage: "load pictures, media and fonts and wait for the load event even when the answer needs no pixels (metadata, data rules, Markdown)", Default: "false", Parse: boolean(&c.FullRenders)},
		{Flag: "mcp", Env: "GLIMPSE_MCP", Usage: "serve the Model Context Protocol endpoint at /mcp: on or off", Default: "on", Parse: onOff(&c.MCP)},
		{Flag: "playground", Env: "GLIMPSE_PLAYGROUND", Usage: "serve the playground page at / to browsers that ask without a url: on or off", Default: "on", Parse: onOff(&c.Playground)},
		{Flag: "allow-proxy", Env: "GLIMPSE_ALLOW_PROXY", Usage: "let callers send a request's traffic through a proxy of their own (`proxy`); its address must be public unless allow-listed", Default: "true", Parse: boolean(&c.AllowProxy)},
		{Flag: "wall-proxy", Env: "GLIMPSE_WALL_PROXY", Usage: "http(s)://user:pass@host:port of a proxy that a render a bot wall answered is tried once more through; empty: none", Default: "", Parse: wallProxy(&c.WallProxy), Secret: true},
		{Flag: "pprof", Env: "GLIMPSE_PPROF", Usage: "serve /debug/pprof (do not expose publicly)", Default: "false", Parse: boolean(&c.Pprof)},
	}
}

// onOff reads a switch: on or off, or true or false.
func onOff(p *bool) func(string) error {
	return func(v string) error {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "on", "true", "1", "yes":
			*p = true
		case "off", "false", "0", "no":
			*p = false
		default:
			return fmt.Errorf("want on or off")
		}
		return nil
	}
}

// docsURL accepts an empty value or an absolute http(s) URL without a
// fragment: `more` adds the code's anchor to it.
func docsURL(p *string) func(string) error {
	return func(v string) error {
		v = strings.TrimSpace(v)
		if v != "" {
			u, err := url.Parse(v)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fmt.Errorf("want an absolute http or https URL of the page documenting the error codes, such as https://docs.example.com/glimpse/api#errors without the anchor")
			}
			if u.Fragment != "" || strings.Contains(v, "#") {
				return fmt.Errorf("want the URL without a #fragment: each error adds its code's anchor (#einvalurl)")
			}
		}
		*p = v
		return nil
	}
}

// wallProxy accepts an empty value or an upstream proxy's URL, read as
// the `proxy` parameter is; its error never repeats the credentials.
func wallProxy(p **url.URL) func(string) error {
	return func(v string) error {
		v = strings.TrimSpace(v)
		if v == "" {
			*p = nil
			return nil
		}
		req, err := query.Parse("url=https://example.com/&proxy="+url.QueryEscape(v), query.Limits{})
		if err != nil || req.Proxy == nil {
			return fmt.Errorf("want the URL of an HTTP or HTTPS proxy, http://user:pass@host:port, with no path, query or fragment")
		}
		*p = req.Proxy
		return nil
	}
}

// redisURL accepts an empty value or a Redis URL; its error never repeats
// the URL's password.
func redisURL(p *string) func(string) error {
	return func(v string) error {
		v = strings.TrimSpace(v)
		if v != "" {
			if err := quota.CheckRedisURL(v); err != nil {
				return err
			}
		}
		*p = v
		return nil
	}
}

// LoadConfig reads defaults, then the environment, then flags. A bad value
// names the flag or variable, the value and what is accepted.
func LoadConfig(args []string, getenv func(string) string, usageOut io.Writer) (Config, error) {
	var c Config
	if err := envflag.Load("orchestrator", "The glimpse HTTP API. With no sidecars configured it starts one in process and keeps files in a local directory.",
		c.settings(), args, getenv, usageOut); err != nil {
		return c, err
	}
	if c.Sidecars != "" && strings.TrimSpace(c.SidecarToken) == "" {
		return c, fmt.Errorf("GLIMPSE_SIDECARS is set but GLIMPSE_SIDECAR_TOKEN is empty; give the token the sidecars were started with")
	}
	if c.S3Endpoint != "" && (c.S3AccessKey == "" || c.S3SecretKey == "") {
		return c, fmt.Errorf("GLIMPSE_S3_ENDPOINT is set but GLIMPSE_S3_ACCESS_KEY or GLIMPSE_S3_SECRET_KEY is empty; give both")
	}
	return c, nil
}
