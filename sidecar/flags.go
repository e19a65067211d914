package sidecar

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/glimpse/glimpse/sidecar/envflag"
	"github.com/glimpse/glimpse/sidecar/guard"
	"github.com/glimpse/glimpse/sidecar/logging"
)

// ParseFlags reads the sidecar's configuration from args and the environment
// (a flag given on the command line wins over its variable). Help goes to
// out; with -h or --help it returns flag.ErrHelp. A bad value's error names
// the flag or variable, the value and what is accepted.
func ParseFlags(args []string, lookupEnv func(string) (string, bool), out io.Writer) (RunConfig, error) {
	cfg := RunConfig{Sidecar: DefaultConfig()}
	sc := &cfg.Sidecar
	var chromeFlags, format, level string
	settings := []envflag.Setting{
		{Flag: "addr", Env: "GLIMPSE_SIDECAR_ADDR", Default: DefaultAddr, Usage: "listen address of /healthz and /devtools/browser",
			Parse: func(v string) error {
				if sc.Addr = strings.TrimSpace(v); sc.Addr == "" {
					return errors.New("want a listen address such as :9230 or 127.0.0.1:9230")
				}
				return nil
			}},
		{Flag: "chrome-path", Env: "GLIMPSE_CHROME_PATH", Usage: "Chromium binary (default: the first of " + strings.Join(chromeCandidates, ", ") + ")",
			Parse: func(v string) error { sc.ChromePath = strings.TrimSpace(v); return nil }},
		{Flag: "chrome-flags", Env: "GLIMPSE_CHROME_FLAGS", Usage: "extra Chromium flags, separated by spaces", Parse: envflag.String(&chromeFlags)},
		{Flag: "recycle-after", Env: "GLIMPSE_RECYCLE_AFTER", Default: strconv.Itoa(DefaultRecycleAfter), Usage: "restart Chromium after this many pages; 0 never",
			Parse: func(v string) error {
				if envflag.Int(&sc.RecycleAfter, 0)(v) != nil {
					return errors.New("want a whole number of pages, 0 or more (0 never recycles)")
				}
				return nil
			}},
		{Flag: "max-pages", Env: "GLIMPSE_SIDECAR_MAX_PAGES", Default: "auto",
			Usage: "pages the sidecar admits at once, over every orchestrator; past it a page is refused as busy and the pool tries another sidecar. auto: one per 512MiB of the container's memory limit beyond 512MiB for the browser, or " + strconv.Itoa(DefaultMaxPages) + " without a limit; 0 no limit",
			Parse: func(v string) error {
				v = strings.TrimSpace(v)
				if v == "auto" {
					sc.MaxPages = MaxPagesFor(memoryLimit())
					return nil
				}
				if envflag.Int(&sc.MaxPages, 0)(v) != nil {
					return errors.New("want auto, or a whole number of pages, 0 or more (0 admits any number)")
				}
				return nil
			}},
		{Flag: "recycle-grace", Env: "GLIMPSE_RECYCLE_GRACE", Default: DefaultRecycleGrace.String(), Usage: "how long a recycled Chromium may finish its open pages; keep it above the orchestrator's GLIMPSE_MAX_TIMEOUT",
			Parse: envflag.Duration(&sc.RecycleGrace)},
		{Flag: "recycle-memory", Env: "GLIMPSE_RECYCLE_MEMORY", Default: "0", Usage: "restart Chromium once it uses more memory than this, such as 1.5GiB; 0 never",
			Parse: func(v string) error {
				n, err := ParseBytes(v)
				if err != nil {
					return errors.New("want a size such as 1.5GiB, 800MB or 0 (never recycle for memory)")
				}
				sc.RecycleMemory = n
				return nil
			}},
		{Flag: "dev-shm", Env: "GLIMPSE_DEV_SHM", Default: DevShmAuto, Usage: "whether Chromium uses /dev/shm: auto (when it holds at least 512MiB), on or off",
			Parse: envflag.OneOf(&sc.DevShm, DevShmAuto, DevShmOn, DevShmOff)},
		{Flag: "allow-targets", Env: "GLIMPSE_ALLOW_TARGETS", Usage: "CIDRs Chromium may reach despite the egress rule (development and tests only)",
			Parse: envflag.Prefixes(&cfg.AllowTargets, guard.ParsePrefixes)},
		{Flag: "dev-hosts", Env: "GLIMPSE_DEV_HOSTS", Usage: "name=address pairs, separated by commas, that the egress guard resolves without DNS; the addresses still pass the egress rule (development and benchmarks only)",
			Parse: func(v string) error {
				hosts, err := guard.ParseHosts(v)
				if err != nil {
					return fmt.Errorf("want name=address pairs separated by commas, such as www.googletagmanager.com=127.0.0.1 (%v)", err)
				}
				cfg.Hosts = hosts
				return nil
			}},
		{Flag: "sidecar-token", Env: "GLIMPSE_SIDECAR_TOKEN", Secret: true, Parse: parseToken(&sc.Token),
			Usage: fmt.Sprintf("shared secret the orchestrator sends to use the DevTools endpoint and the egress proxy, at least %d characters; required (prefer the variable: a command line is visible to every user of the machine)", MinTokenLength)},
		{Flag: "log-format", Env: "GLIMPSE_LOG_FORMAT", Default: "text", Usage: "log format: text or json", Parse: envflag.OneOf(&format, logging.Formats...)},
		{Flag: "log-level", Env: "GLIMPSE_LOG_LEVEL", Default: "info", Usage: "log level: debug, info, warn or error", Parse: envflag.OneOf(&level, logging.Levels...)},
	}
	getenv := func(k string) string { v, _ := lookupEnv(k); return v }
	err := envflag.Load("sidecar", sidecarAbout, settings, args, getenv, out)
	sc.ExtraFlags = strings.Fields(chromeFlags)
	sc.Logger = logging.New(out, format, level)
	return cfg, err
}

const sidecarAbout = `Runs headless Chromium, restarts it when it dies, recycles it after many pages,
and serves /healthz and, to callers with the sidecar token, the DevTools
WebSocket /devtools/browser and the egress proxy. Every connection Chromium
opens goes through the built-in egress guard.`

// memoryLimit is MemoryLimit; tests replace it.
var memoryLimit = MemoryLimit

// parseToken reads the sidecar token. Its errors never quote the value, as
// every other setting's do: a secret does not belong in a log.
func parseToken(dst *string) func(string) error {
	return func(v string) error {
		token := strings.TrimSpace(v)
		switch {
		case token == "":
			return fmt.Errorf("is not set: the sidecar refuses to start without the shared secret that keeps anyone but the orchestrator from driving its browser; "+
				"set the same random value, at least %d characters (such as the output of `openssl rand -hex 32`), as GLIMPSE_SIDECAR_TOKEN for the sidecar and the orchestrator", MinTokenLength)
		case len(token) < MinTokenLength:
			return fmt.Errorf("is %d characters long: the sidecar token must have at least %d, such as the output of `openssl rand -hex 32`", len(token), MinTokenLength)
		case strings.IndexFunc(token, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0:
			return errors.New("holds a character other than printable ASCII: the sidecar token travels in an HTTP header, so use letters, digits and punctuation only")
		}
		*dst = token
		return nil
	}
}

// ParseBytes reads a size: a plain number of bytes, or a number with one of
// the units B, kB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024).
func ParseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	mult := map[string]float64{
		"": 1, "b": 1,
		"kb": 1e3, "mb": 1e6, "gb": 1e9, "k": 1e3, "m": 1e6, "g": 1e9,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "ki": 1 << 10, "mi": 1 << 20, "gi": 1 << 30,
	}[strings.ToLower(unit)]
	if mult == 0 || num == "" {
		return 0, fmt.Errorf("size %q: want a number with an optional unit B, kB, MB, GB, KiB, MiB or GiB", s)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 || f*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %q: want a non-negative number with an optional unit", s)
	}
	return int64(f * mult), nil
}
