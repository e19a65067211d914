package sidecar

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/glimpse/glimpse/sidecar/guard"
)

// Defaults of Config. New applies those whose zero value means nothing
// sensible; RecycleAfter and RecycleMemory keep 0 as "never".
const (
	DefaultAddr         = ":9230"
	DefaultRecycleAfter = 500
	// DefaultRecycleGrace outlasts the orchestrator's longest request
	// (GLIMPSE_MAX_TIMEOUT, 60s by default) with a margin, so a recycle
	// never cuts a render short that was within its timeout.
	DefaultRecycleGrace = 75 * time.Second
	DefaultStartTimeout = 30 * time.Second
)

// Config says how a Sidecar runs Chromium.
type Config struct {
	// Addr is where Run listens; New ignores it. Default ":9230".
	Addr string
	// ChromePath is the Chromium binary; "" means FindChrome.
	ChromePath string
	// RecycleAfter restarts Chromium after this many page targets were
	// created in one generation; 0 means never. DefaultConfig sets 500.
	RecycleAfter int
	// RecycleMemory restarts Chromium once its process group uses more than
	// this many bytes; 0 means never.
	RecycleMemory int64
	// MaxPages is how many pages the sidecar admits at once, over all its
	// clients; a page past it is refused with cdp.CodeSidecarFull, which
	// the pool treats as a full sidecar. 0 means no limit, which suits a
	// sidecar only one orchestrator uses (the embedded one); the sidecar
	// binary derives a limit from its memory (MaxPagesFor).
	MaxPages int
	// RecycleGrace is how long a recycled browser may finish its open
	// pages before it is stopped anyway. Keep it above the longest request
	// timeout of the clients. Default 75s.
	RecycleGrace time.Duration
	// StartTimeout bounds one launch, from exec to a ready DevTools
	// connection. Default 30s.
	StartTimeout time.Duration
	// ProxyAddr, when set, is the egress guard proxy every connection of the
	// browser goes through (guard.ChromeFlags).
	ProxyAddr string
	// UnfilteredProxyAddr, when set, is a second address of the egress
	// guard, without the ad-block list, that /healthz names so that a client
	// can create browser contexts that use it (Target.createBrowserContext's
	// proxyServer) for renders with adblock off.
	UnfilteredProxyAddr string
	// BackgroundProxyAddr, when set with ProxyAddr, is Chromium's own
	// proxy, which refuses everything: the browser's background traffic
	// (account lists, component updates) uses it, while every browser
	// context a client creates is given ProxyAddr as its proxy by the
	// DevTools filter, unless it names the unfiltered one.
	BackgroundProxyAddr string
	// UpstreamRoute, when set, opens the egress guard's route through a
	// caller's proxy (the URL, credentials included) and returns its
	// address: a browser context created with glimpseUpstream is given
	// that route as its proxy by the DevTools filter. Run sets it.
	UpstreamRoute func(proxy string, unfiltered bool) (addr string, err error)
	// Token is the shared secret a caller of /devtools/browser and
	// /json/version must send as "Authorization: Bearer <token>"; Run's
	// egress proxy on Addr wants it as Proxy-Authorization. Empty means no
	// authentication at all, which suits only a sidecar whose listener no
	// one else can reach, such as one a test or another process of glimpse
	// runs on a loopback port of its own: the sidecar binary refuses to start
	// without a token (GLIMPSE_SIDECAR_TOKEN), and NewToken makes one for
	// an in-process sidecar. Blanks around it are dropped, as the pool
	// drops them.
	Token string
	// ProtectPort, when set, is called with the port of each Chromium's own
	// DevTools endpoint while that browser runs, and returns the function
	// that ends the protection. Run points it at the egress guard, so no
	// page reaches that port whatever the allow-list says.
	ProtectPort func(port uint16) (release func())
	// DevShm says whether Chromium keeps its shared memory in /dev/shm:
	// "on", "off" (--disable-dev-shm-usage, which writes to /tmp instead)
	// or "" and "auto", which use /dev/shm when it holds at least
	// minDevShmBytes. A container's default 64 MiB /dev/shm makes large
	// pages crash their renderer; a mounted memory volume is faster than
	// /tmp.
	DevShm string
	// ExtraFlags are appended to Chromium's command line. A
	// --disable-features list is merged with the built-in one.
	ExtraFlags []string
	// Logger receives the supervisor's log; nil means slog.Default().
	Logger *slog.Logger

	// skipDevShm is DevShm decided once, when the sidecar is created.
	skipDevShm bool
}

// DevShm modes.
const (
	DevShmAuto = "auto"
	DevShmOn   = "on"
	DevShmOff  = "off"
)

// minDevShmBytes is the smallest /dev/shm that "auto" uses: a few large
// pages rendering at once need hundreds of megabytes of shared memory.
const minDevShmBytes = 512 << 20

// devShmPath is where Chromium keeps shared memory unless told otherwise.
const devShmPath = "/dev/shm"

// skipDevShm decides whether Chromium is told to avoid /dev/shm. size
// returns the total size of /dev/shm; an error means it cannot be used.
func skipDevShm(mode string, size func() (int64, error)) (skip bool, why string) {
	switch mode {
	case DevShmOn:
		return false, "DevShm is on"
	case DevShmOff:
		return true, "DevShm is off"
	}
	n, err := size()
	switch {
	case err != nil:
		return true, fmt.Sprintf("%s cannot be used: %v", devShmPath, err)
	case n < minDevShmBytes:
		return true, fmt.Sprintf("%s holds %d MiB, less than the %d MiB large pages need", devShmPath, n>>20, minDevShmBytes>>20)
	}
	return false, fmt.Sprintf("%s holds %d MiB", devShmPath, n>>20)
}

// devShmSize returns the total size of the file system at /dev/shm.
func devShmSize() (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(devShmPath, &st); err != nil {
		return 0, err
	}
	return int64(st.Blocks) * int64(st.Bsize), nil
}

// DefaultConfig returns the configuration the sidecar binary starts from.
func DefaultConfig() Config {
	return Config{
		Addr:         DefaultAddr,
		RecycleAfter: DefaultRecycleAfter,
		RecycleGrace: DefaultRecycleGrace,
		StartTimeout: DefaultStartTimeout,
	}
}

// withDefaults validates cfg and fills in what was left empty.
func (cfg Config) withDefaults() (Config, error) {
	var errs []error
	if cfg.RecycleAfter < 0 {
		errs = append(errs, fmt.Errorf("RecycleAfter is %d; it must be 0 (never recycle) or a positive number of page targets", cfg.RecycleAfter))
	}
	if cfg.MaxPages < 0 {
		errs = append(errs, fmt.Errorf("MaxPages is %d; it must be 0 (no limit) or a positive number of pages", cfg.MaxPages))
	}
	if cfg.RecycleMemory < 0 {
		errs = append(errs, fmt.Errorf("RecycleMemory is %d; it must be 0 (never recycle) or a positive number of bytes", cfg.RecycleMemory))
	}
	if cfg.RecycleGrace < 0 {
		errs = append(errs, fmt.Errorf("RecycleGrace is %v; it must be a positive duration such as 30s", cfg.RecycleGrace))
	}
	if cfg.StartTimeout < 0 {
		errs = append(errs, fmt.Errorf("StartTimeout is %v; it must be a positive duration such as 30s", cfg.StartTimeout))
	}
	if cfg.ProxyAddr != "" {
		if _, _, err := net.SplitHostPort(cfg.ProxyAddr); err != nil {
			errs = append(errs, fmt.Errorf("ProxyAddr %q is not a host:port address of the egress proxy: %w", cfg.ProxyAddr, err))
		}
	}
	cfg.Token = strings.TrimSpace(cfg.Token)
	if strings.IndexFunc(cfg.Token, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0 {
		errs = append(errs, errors.New("Token holds a character other than printable ASCII: it travels in an HTTP header, so use letters, digits and punctuation only"))
	}
	switch cfg.DevShm {
	case "", DevShmAuto, DevShmOn, DevShmOff:
	default:
		errs = append(errs, fmt.Errorf("DevShm is %q; it must be auto, on or off", cfg.DevShm))
	}
	for _, f := range cfg.ExtraFlags {
		if name := reservedFlag(f); name != "" {
			errs = append(errs, fmt.Errorf("the extra Chromium flag %s (GLIMPSE_CHROME_FLAGS) is not accepted: the sidecar sets %s itself, to keep the browser behind the egress guard and its DevTools port away from web pages", name, name))
		}
	}
	if len(errs) > 0 {
		return cfg, errors.Join(errs...)
	}

	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.RecycleGrace == 0 {
		cfg.RecycleGrace = DefaultRecycleGrace
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	var why string
	cfg.skipDevShm, why = skipDevShm(cfg.DevShm, devShmSize)
	if cfg.skipDevShm {
		cfg.Logger.Info("Chromium keeps its shared memory in the temporary directory, not /dev/shm.", "why", why)
	} else {
		cfg.Logger.Info("Chromium keeps its shared memory in /dev/shm.", "why", why)
	}
	if cfg.MaxPages > 0 {
		cfg.Logger.Info("The sidecar admits a limited number of pages at once, over all its clients.", "max_pages", cfg.MaxPages)
	}
	if cfg.ChromePath == "" {
		p, err := FindChrome()
		if err != nil {
			return cfg, err
		}
		cfg.ChromePath = p
	} else if err := checkExecutable(cfg.ChromePath); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// chromeCandidates are tried in order: absolute paths as they are, bare
// names on PATH. The headless shell (Debian's chromium-headless-shell, the
// same version as chromium) comes first: it has no windows and no browser
// UI, so a browser context, its page and a navigation cost it about half
// the processor time and memory of the full browser's headless mode
// (docs/performance.md#the-browser).
var chromeCandidates = []string{
	"/usr/lib/chromium/chromium-headless-shell", // the real binary; /usr/bin/chromium-headless-shell is a shell wrapper
	"/usr/lib/chromium/chromium",                // the real binary; /usr/bin/chromium is a shell wrapper
	"chromium-headless-shell",
	"/usr/bin/chromium",
	"chromium-browser",
	"chromium",
	"google-chrome",
}

// FindChrome returns the first Chromium binary found. The sidecar binary
// reads GLIMPSE_CHROME_PATH itself and only falls back to this.
func FindChrome() (string, error) {
	return findChrome(chromeCandidates)
}

func findChrome(candidates []string) (string, error) {
	for _, c := range candidates {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium binary found (looked for %s); install the Debian package \"chromium\" (apt-get install chromium) or set GLIMPSE_CHROME_PATH to the binary", strings.Join(candidates, ", "))
}

func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("the Chromium binary %s cannot be used: %w; install the Debian package \"chromium\" or point GLIMPSE_CHROME_PATH at the binary", path, err)
	case fi.IsDir():
		return fmt.Errorf("the Chromium binary %s is a directory; point GLIMPSE_CHROME_PATH at the binary inside it", path)
	case fi.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("the Chromium binary %s is not executable (mode %v)", path, fi.Mode().Perm())
	}
	return nil
}

// reservedFlags are the Chromium flags the sidecar's safety rests on. An
// extra flag may not set them: Chromium takes the last of two, so a second
// --proxy-server would send the browser around the egress guard, and a
// --remote-allow-origins would let web pages drive its DevTools port.
var reservedFlags = []string{
	"--remote-allow-origins", "--remote-debugging-address", "--remote-debugging-port", "--remote-debugging-pipe",
	"--proxy-server", "--proxy-bypass-list", "--no-proxy-server", "--proxy-pac-url", "--proxy-auto-detect",
	"--user-data-dir", "--host-resolver-rules",
}

// reservedFlag returns the name of the reserved flag f sets, or "".
func reservedFlag(f string) string {
	name, _, _ := strings.Cut(f, "=")
	name = "--" + strings.TrimLeft(name, "-")
	for _, r := range reservedFlags {
		if strings.EqualFold(name, r) {
			return r
		}
	}
	return ""
}

// disabledFeatures are Chromium features that only cost time, memory or
// network in a browser that nobody looks at. Headless Chromium gives every
// page of a new browser context a window of its own, and without the
// omnibox ones each window starts two renderers for address-bar popups
// that never show; the spare renderer is started ahead for a next
// navigation in the same context, which a context used for one page never
// makes. Together they were 40 % of Chromium's processor time per render.
//
// The last ones keep the browser from asking the network for things of its
// own, which the sidecar would only refuse: the network time, certificate
// transparency lists and form data from Google's servers.
var disabledFeatures = []string{
	"Translate", "MediaRouter", "OptimizationHints",
	"WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "SpareRendererForSitePerProcess",
	"NetworkTimeServiceQuerying", "CertificateTransparencyComponentUpdater", "AutofillServerCommunication",
}

// baseFlags are passed to every Chromium. Besides the required headless set
// they keep a background page from being throttled (every page of a
// headless browser is "in the background") and keep Chromium from phoning
// home or showing prompts nobody can answer.
var baseFlags = []string{
	"--headless",
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--no-default-browser-check",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-component-extensions-with-background-pages",
	"--disable-field-trial-config", // the same features on every run, not a random trial
	"--no-pings",
	"--disable-sync",
	"--hide-scrollbars",
	"--mute-audio",
	"--disable-extensions",
	"--disable-default-apps",
	"--disable-breakpad",
	"--disable-crash-reporter",
	"--metrics-recording-only",
	"--password-store=basic",
	"--use-mock-keychain",
	"--disable-background-timer-throttling",
	"--disable-backgrounding-occluded-windows",
	"--disable-renderer-backgrounding",
	"--disable-client-side-phishing-detection",
	"--disable-domain-reliability",
	"--disable-hang-monitor",
	"--disable-prompt-on-repost",
	"--deny-permission-prompts",
	"--noerrdialogs",
	"--force-color-profile=srgb",
	// No --remote-allow-origins: Chromium then refuses a DevTools WebSocket
	// that carries an Origin header, which every web page's does, and
	// accepts the sidecar's, which sends none. The port stays on loopback,
	// and the egress guard refuses it to pages (Config.ProtectPort). A pipe
	// (--remote-debugging-pipe) would remove the port, but it is a single
	// connection, and every client of the sidecar gets a connection of its
	// own to Chromium, with its own sessions, ids and target discovery.
	"--remote-debugging-address=127.0.0.1",
	"--remote-debugging-port=0",
}

// chromeArgs builds the command line of one generation.
func chromeArgs(cfg Config, profileDir string) []string {
	args := append([]string(nil), baseFlags...)
	args = append(args, "--user-data-dir="+profileDir)
	if cfg.skipDevShm {
		args = append(args, "--disable-dev-shm-usage")
	}
	switch {
	case cfg.ProxyAddr != "" && cfg.BackgroundProxyAddr != "":
		args = append(args, guard.ChromeFlags(cfg.BackgroundProxyAddr)...)
	case cfg.ProxyAddr != "":
		args = append(args, guard.ChromeFlags(cfg.ProxyAddr)...)
	}
	features := append([]string(nil), disabledFeatures...)
	for _, f := range cfg.ExtraFlags {
		// Chromium honours only the last --disable-features, so a second one
		// would silently switch the built-in ones back on.
		if list, ok := strings.CutPrefix(f, "--disable-features="); ok {
			for item := range strings.SplitSeq(list, ",") {
				if item = strings.TrimSpace(item); item != "" {
					features = append(features, item)
				}
			}
			continue
		}
		args = append(args, f)
	}
	args = append(args, "--disable-features="+strings.Join(features, ","))
	// One blank page instead of the New Tab page, which loads more; it is
	// closed once the browser is ready.
	return append(args, "about:blank")
}

// newProfileDir creates a fresh, private profile directory for a generation.
func newProfileDir() (string, error) {
	dir, err := os.MkdirTemp("", profilePrefix)
	if err != nil {
		return "", fmt.Errorf("creating a profile directory for Chromium in %s: %w", os.TempDir(), err)
	}
	return filepath.Clean(dir), nil
}
