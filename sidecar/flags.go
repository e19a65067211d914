package sidecar

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/glimpse/glimpse/sidecar/guard"
)

// setting is one flag and its environment twin.
type setting struct {
	flag, env string
	def       string
	usage     string
	value     string // resolved: flag, else variable, else default
	source    string // how the value was given, for error messages
}

func (st *setting) bad(accepted string) error {
	return fmt.Errorf("%s=%q is not valid: %s", st.source, st.value, accepted)
}

// ParseFlags reads the sidecar's configuration from args and the environment
// (a flag given on the command line wins over its variable). Help goes to
// out; with -h or --help it returns flag.ErrHelp. A bad value's error names
// the flag or variable, the value and what is accepted.
func ParseFlags(args []string, lookupEnv func(string) (string, bool), out io.Writer) (RunConfig, error) {
	settings := []*setting{
		{flag: "addr", env: "GLIMPSE_SIDECAR_ADDR", def: DefaultAddr, usage: "listen address of /healthz and /devtools/browser"},
		{flag: "chrome-path", env: "GLIMPSE_CHROME_PATH", usage: "Chromium binary (default: the first of " + strings.Join(chromeCandidates, ", ") + ")"},
		{flag: "chrome-flags", env: "GLIMPSE_CHROME_FLAGS", usage: "extra Chromium flags, separated by spaces"},
		{flag: "recycle-after", env: "GLIMPSE_RECYCLE_AFTER", def: strconv.Itoa(DefaultRecycleAfter), usage: "restart Chromium after this many pages; 0 never"},
		{flag: "recycle-grace", env: "GLIMPSE_RECYCLE_GRACE", def: DefaultRecycleGrace.String(), usage: "how long a recycling Chromium waits for its open pages"},
		{flag: "recycle-memory", env: "GLIMPSE_RECYCLE_MEMORY", def: "0", usage: "restart Chromium once it uses more memory than this, such as 1.5GiB; 0 never"},
		{flag: "allow-targets", env: "GLIMPSE_ALLOW_TARGETS", usage: "CIDRs Chromium may reach despite the egress rule (development and tests only)"},
		{flag: "sidecar-token", env: "GLIMPSE_SIDECAR_TOKEN", usage: fmt.Sprintf("shared secret the orchestrator sends to use the DevTools endpoint and the egress proxy, at least %d characters; required (prefer the variable: a command line is visible to every user of the machine)", MinTokenLength)},
		{flag: "log-format", env: "GLIMPSE_LOG_FORMAT", def: "text", usage: "log format: text or json"},
		{flag: "log-level", env: "GLIMPSE_LOG_LEVEL", def: "info", usage: "log level: debug, info, warn or error"},
	}

	fs := flag.NewFlagSet("sidecar", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() { printUsage(out, settings) }
	byFlag := map[string]*setting{}
	for _, st := range settings {
		byFlag[st.flag] = st
		fs.StringVar(&st.value, st.flag, st.def, st.usage)
	}
	if err := fs.Parse(args); err != nil {
		return RunConfig{}, err
	}
	if fs.NArg() > 0 {
		return RunConfig{}, fmt.Errorf("unexpected argument %q: the sidecar takes flags only (see --help)", fs.Arg(0))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, st := range settings {
		switch v, ok := lookupEnv(st.env); {
		case given[st.flag]:
			st.source = "--" + st.flag
		case ok:
			st.value, st.source = v, st.env
		default:
			st.source = st.env
		}
	}
	return buildRunConfig(byFlag, out)
}

func buildRunConfig(s map[string]*setting, logOut io.Writer) (RunConfig, error) {
	cfg := RunConfig{Sidecar: DefaultConfig()}
	var errs []error

	if cfg.Sidecar.Addr = strings.TrimSpace(s["addr"].value); cfg.Sidecar.Addr == "" {
		errs = append(errs, s["addr"].bad("want a listen address such as :9230 or 127.0.0.1:9230"))
	}
	cfg.Sidecar.ChromePath = strings.TrimSpace(s["chrome-path"].value)
	cfg.Sidecar.ExtraFlags = strings.Fields(s["chrome-flags"].value)

	if n, err := strconv.Atoi(strings.TrimSpace(s["recycle-after"].value)); err != nil || n < 0 {
		errs = append(errs, s["recycle-after"].bad("want a whole number of pages, 0 or more (0 never recycles)"))
	} else {
		cfg.Sidecar.RecycleAfter = n
	}
	if d, err := time.ParseDuration(strings.TrimSpace(s["recycle-grace"].value)); err != nil || d <= 0 {
		errs = append(errs, s["recycle-grace"].bad("want a positive duration such as 30s or 2m"))
	} else {
		cfg.Sidecar.RecycleGrace = d
	}
	if n, err := ParseBytes(s["recycle-memory"].value); err != nil {
		errs = append(errs, s["recycle-memory"].bad("want a size such as 1.5GiB, 800MB or 0 (never recycle for memory)"))
	} else {
		cfg.Sidecar.RecycleMemory = n
	}
	if v := strings.TrimSpace(s["allow-targets"].value); v != "" {
		prefixes, err := guard.ParsePrefixes(v)
		if err != nil {
			errs = append(errs, s["allow-targets"].bad(fmt.Sprintf("want CIDRs or addresses separated by commas, such as 127.0.0.0/8,::1 (%v)", err)))
		}
		cfg.AllowTargets = prefixes
	}
	if token, err := parseToken(s["sidecar-token"]); err != nil {
		errs = append(errs, err)
	} else {
		cfg.Sidecar.Token = token
	}
	logger, err := NewLogger(logOut, s["log-format"].value, s["log-level"].value)
	if err != nil {
		var bad *badLogSetting
		if errors.As(err, &bad) {
			errs = append(errs, s[bad.flag].bad(bad.accepted))
		} else {
			errs = append(errs, err)
		}
	}
	cfg.Sidecar.Logger = logger
	return cfg, errors.Join(errs...)
}

// parseToken reads the sidecar token. Its errors never quote the value, as
// every other setting's do: a secret does not belong in a log.
func parseToken(st *setting) (string, error) {
	token := strings.TrimSpace(st.value)
	switch {
	case token == "":
		return "", fmt.Errorf("%s is not set: the sidecar refuses to start without the shared secret that keeps anyone but the orchestrator from driving its browser; "+
			"set the same random value, at least %d characters (such as the output of `openssl rand -hex 32`), as GLIMPSE_SIDECAR_TOKEN for the sidecar and the orchestrator", st.source, MinTokenLength)
	case len(token) < MinTokenLength:
		return "", fmt.Errorf("%s is %d characters long: the sidecar token must have at least %d, such as the output of `openssl rand -hex 32`", st.source, len(token), MinTokenLength)
	case strings.IndexFunc(token, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0:
		return "", fmt.Errorf("%s holds a character other than printable ASCII: the sidecar token travels in an HTTP header, so use letters, digits and punctuation only", st.source)
	}
	return token, nil
}

type badLogSetting struct{ flag, accepted string }

func (e *badLogSetting) Error() string { return "--" + e.flag + ": " + e.accepted }

// NewLogger returns a logger writing format ("text" or "json") at level
// ("debug", "info", "warn" or "error") to w.
func NewLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	var errs []error
	switch strings.ToLower(strings.TrimSpace(level)) {
	case "debug":
		lv = slog.LevelDebug
	case "info", "":
		lv = slog.LevelInfo
	case "warn", "warning":
		lv = slog.LevelWarn
	case "error":
		lv = slog.LevelError
	default:
		errs = append(errs, &badLogSetting{"log-level", "want debug, info, warn or error"})
	}
	opts := &slog.HandlerOptions{Level: lv}
	var h slog.Handler
	switch strings.ToLower(strings.TrimSpace(format)) {
	case "text", "":
		h = slog.NewTextHandler(w, opts)
	case "json":
		h = slog.NewJSONHandler(w, opts)
	default:
		errs = append(errs, &badLogSetting{"log-format", "want text or json"})
		h = slog.NewTextHandler(w, opts)
	}
	return slog.New(h), errors.Join(errs...)
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

func printUsage(out io.Writer, settings []*setting) {
	fmt.Fprint(out, `Usage: sidecar [flags]

Runs headless Chromium, restarts it when it dies, recycles it after many pages,
and serves /healthz and, to callers with the sidecar token, the DevTools
WebSocket /devtools/browser and the egress proxy. Every connection Chromium
opens goes through the built-in egress guard.

Each flag has an environment variable; the flag wins when both are set.

`)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, st := range settings {
		def := ""
		if st.def != "" {
			def = fmt.Sprintf(" (default %q)", st.def)
		}
		fmt.Fprintf(tw, "  --%s\t%s\t%s%s\n", st.flag, st.env, st.usage, def)
	}
	tw.Flush()
}
