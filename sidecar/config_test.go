package sidecar

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNewValidatesConfig(t *testing.T) {
	exe := writeScript(t, "exit 0")
	notExec := filepath.Join(t.TempDir(), "chromium")
	if err := os.WriteFile(notExec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		cfg  Config
		want string // "" means New succeeds
	}{
		{name: "a valid configuration is accepted", cfg: Config{ChromePath: exe}},
		{name: "a negative page count is refused", cfg: Config{ChromePath: exe, RecycleAfter: -1}, want: "RecycleAfter is -1"},
		{name: "a negative memory limit is refused", cfg: Config{ChromePath: exe, RecycleMemory: -5}, want: "RecycleMemory is -5"},
		{name: "a negative grace period is refused", cfg: Config{ChromePath: exe, RecycleGrace: -time.Second}, want: "RecycleGrace is -1s"},
		{name: "a negative start timeout is refused", cfg: Config{ChromePath: exe, StartTimeout: -time.Second}, want: "StartTimeout is -1s"},
		{name: "a proxy address without a port is refused", cfg: Config{ChromePath: exe, ProxyAddr: "127.0.0.1"}, want: `ProxyAddr "127.0.0.1" is not a host:port`},
		{name: "a missing binary is refused with what to install", cfg: Config{ChromePath: "/nonexistent/chromium"}, want: `install the Debian package "chromium"`},
		{name: "a directory as the binary is refused", cfg: Config{ChromePath: t.TempDir()}, want: "is a directory"},
		{name: "a binary that is not executable is refused", cfg: Config{ChromePath: notExec}, want: "is not executable"},
		{name: "an extra flag that lets web pages use the DevTools port is refused", cfg: Config{ChromePath: exe, ExtraFlags: []string{"--remote-allow-origins=*"}},
			want: "--remote-allow-origins (GLIMPSE_CHROME_FLAGS) is not accepted"},
		{name: "an extra proxy, which would skip the egress guard, is refused however it is spelled", cfg: Config{ChromePath: exe, ExtraFlags: []string{"-PROXY-SERVER=direct://"}},
			want: "--proxy-server (GLIMPSE_CHROME_FLAGS) is not accepted"},
		{name: "an extra DevTools address is refused", cfg: Config{ChromePath: exe, ExtraFlags: []string{"--remote-debugging-address=0.0.0.0"}},
			want: "--remote-debugging-address"},
		{name: "a token with a line break, which no header can carry, is refused", cfg: Config{ChromePath: exe, Token: "0123456789abcdef\r\nX: y"},
			want: "Token holds a character other than printable ASCII"},
		{name: "other extra flags are accepted", cfg: Config{ChromePath: exe, ExtraFlags: []string{"--lang=de", "--proxy-whatever"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.cfg)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				if err := s.Close(); err != nil {
					t.Errorf("Close of a sidecar never started: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New = %v, want an error mentioning %q", err, tt.want)
			}
		})
	}
}

func TestNewFillsInDefaults(t *testing.T) {
	s, err := New(Config{ChromePath: writeScript(t, "exit 0")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.cfg.Addr != DefaultAddr || s.cfg.RecycleGrace != DefaultRecycleGrace || s.cfg.StartTimeout != DefaultStartTimeout || s.cfg.Logger == nil {
		t.Errorf("defaults not applied: %+v", s.cfg)
	}
	if s.cfg.RecycleAfter != 0 {
		t.Errorf("RecycleAfter = %d, want 0 (never) kept", s.cfg.RecycleAfter)
	}
	if d := DefaultConfig(); d.RecycleAfter != 500 || d.Addr != ":9230" || d.RecycleGrace != 75*time.Second {
		t.Errorf("DefaultConfig = %+v", d)
	}
}

func TestFindChrome(t *testing.T) {
	bin := t.TempDir()
	onPath := filepath.Join(bin, "chromium")
	if err := os.WriteFile(onPath, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	absolute := writeScript(t, "exit 0")
	t.Setenv("PATH", bin)

	tests := []struct {
		name       string
		candidates []string
		want       string
		wantErr    string
	}{
		{name: "an absolute candidate that exists wins", candidates: []string{"/nonexistent/chromium", absolute, "chromium"}, want: absolute},
		{name: "a bare name is looked up on PATH", candidates: []string{"/nonexistent/chromium", "chromium-browser", "chromium"}, want: onPath},
		{name: "nothing found names the Debian package and the variable", candidates: []string{"/nonexistent/chromium", "google-chrome"}, wantErr: `install the Debian package "chromium" (apt-get install chromium) or set GLIMPSE_CHROME_PATH`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := findChrome(tt.candidates)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("findChrome = %q, %v; want an error mentioning %q", got, err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), "google-chrome") {
					t.Errorf("error %q does not list where it looked", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("findChrome = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestChromeArgs(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		has     []string
		hasNot  []string
		feature string
	}{
		{
			name:    "the required headless flags and a fresh profile are always there",
			cfg:     Config{},
			has:     []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--user-data-dir=/p", "--password-store=basic", "--use-mock-keychain", "--mute-audio", "--hide-scrollbars"},
			hasNot:  []string{"--proxy-server=http://127.0.0.1:8118", "--disable-dev-shm-usage"},
			feature: "--disable-features=Translate,MediaRouter,OptimizationHints,WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess,NetworkTimeServiceQuerying,CertificateTransparencyComponentUpdater,AutofillServerCommunication",
		},
		{
			name:    "a /dev/shm too small for Chromium is avoided",
			cfg:     Config{skipDevShm: true},
			has:     []string{"--disable-dev-shm-usage"},
			feature: "--disable-features=Translate,MediaRouter,OptimizationHints,WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess,NetworkTimeServiceQuerying,CertificateTransparencyComponentUpdater,AutofillServerCommunication",
		},
		{
			name:    "no web page may open Chromium's DevTools socket: no origin is allowed",
			cfg:     Config{ExtraFlags: []string{"--lang=de"}},
			hasNot:  []string{"--remote-allow-origins=*"},
			feature: "--disable-features=Translate,MediaRouter,OptimizationHints,WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess,NetworkTimeServiceQuerying,CertificateTransparencyComponentUpdater,AutofillServerCommunication",
		},
		{
			name:    "a proxy address sends Chromium through the egress guard, loopback included",
			cfg:     Config{ProxyAddr: "127.0.0.1:8118"},
			has:     []string{"--proxy-server=http://127.0.0.1:8118", "--proxy-bypass-list=<-loopback>"},
			feature: "--disable-features=Translate,MediaRouter,OptimizationHints,WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess,NetworkTimeServiceQuerying,CertificateTransparencyComponentUpdater,AutofillServerCommunication",
		},
		{
			name:    "with a background proxy Chromium's own traffic goes there, not to the guard",
			cfg:     Config{ProxyAddr: "127.0.0.1:8118", BackgroundProxyAddr: "127.0.0.1:8120"},
			has:     []string{"--proxy-server=http://127.0.0.1:8120", "--proxy-bypass-list=<-loopback>"},
			hasNot:  []string{"--proxy-server=http://127.0.0.1:8118"},
			feature: "--disable-features=Translate,MediaRouter,OptimizationHints,WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess,NetworkTimeServiceQuerying,CertificateTransparencyComponentUpdater,AutofillServerCommunication",
		},
		{
			name:    "extra flags are appended and an extra feature list is merged, not overriding",
			cfg:     Config{ExtraFlags: []string{"--lang=de", "--disable-features=Foo, Bar"}},
			has:     []string{"--lang=de"},
			hasNot:  []string{"--disable-features=Foo, Bar"},
			feature: "--disable-features=Translate,MediaRouter,OptimizationHints,WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess,NetworkTimeServiceQuerying,CertificateTransparencyComponentUpdater,AutofillServerCommunication,Foo,Bar",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := chromeArgs(tt.cfg, "/p")
			for _, h := range tt.has {
				if !slices.Contains(args, h) {
					t.Errorf("args lack %s: %v", h, args)
				}
			}
			for _, h := range tt.hasNot {
				if slices.Contains(args, h) {
					t.Errorf("args have %s: %v", h, args)
				}
			}
			for _, a := range args {
				if strings.HasPrefix(a, "--remote-allow-origins") {
					t.Errorf("args have %s, which lets web pages use Chromium's DevTools port", a)
				}
			}
			var features []string
			for _, a := range args {
				if strings.HasPrefix(a, "--disable-features=") {
					features = append(features, a)
				}
			}
			if len(features) != 1 || features[0] != tt.feature {
				t.Errorf("feature flags = %v, want just %s", features, tt.feature)
			}
			if args[len(args)-1] != "about:blank" {
				t.Errorf("the last argument is %q, want about:blank", args[len(args)-1])
			}
		})
	}
}

func TestNextBackoff(t *testing.T) {
	tests := []struct {
		name string
		in   time.Duration
		want time.Duration
	}{
		{name: "no delay yet starts at the minimum", in: 0, want: 100 * time.Millisecond},
		{name: "a delay doubles", in: 100 * time.Millisecond, want: 200 * time.Millisecond},
		{name: "a delay stops at the cap", in: 4 * time.Second, want: 5 * time.Second},
		{name: "the cap stays the cap", in: 5 * time.Second, want: 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nextBackoff(tt.in); got != tt.want {
				t.Errorf("nextBackoff(%v) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestSkipDevShm(t *testing.T) {
	size := func(n int64, err error) func() (int64, error) {
		return func() (int64, error) { return n, err }
	}
	tests := []struct {
		name string
		mode string
		size func() (int64, error)
		skip bool
	}{
		{name: "a container's default 64 MiB is too small", mode: "", size: size(64<<20, nil), skip: true},
		{name: "a mounted 1 GiB memory volume is used", mode: DevShmAuto, size: size(1<<30, nil), skip: false},
		{name: "exactly 512 MiB is enough", mode: "", size: size(512<<20, nil), skip: false},
		{name: "just under 512 MiB is not", mode: "", size: size(512<<20-1, nil), skip: true},
		{name: "a missing /dev/shm is avoided", mode: "", size: size(0, errors.New("no such file or directory")), skip: true},
		{name: "on uses /dev/shm whatever its size", mode: DevShmOn, size: size(64<<20, nil), skip: false},
		{name: "off avoids /dev/shm whatever its size", mode: DevShmOff, size: size(1<<30, nil), skip: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skip, why := skipDevShm(tt.mode, tt.size)
			if skip != tt.skip || why == "" {
				t.Errorf("skipDevShm(%q) = %v, %q; want %v and a reason", tt.mode, skip, why, tt.skip)
			}
		})
	}
}

func TestIsHeadlessShellKnowsTheShellByItsBinary(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"/usr/lib/chromium/chromium-headless-shell", true},
		{"/usr/bin/chromium-headless-shell", true},
		{"/opt/chrome-headless-shell-linux64/chrome-headless-shell", true},
		{"/opt/headless_shell/headless_shell", true},
		{"/usr/lib/chromium/chromium", false},
		{"/usr/bin/google-chrome", false},
		{"/opt/headless-shells/chromium", false},
	}
	for _, tt := range tests {
		if got := isHeadlessShell(tt.path); got != tt.want {
			t.Errorf("isHeadlessShell(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestTheHeadlessShellIsPreferredToTheFullBrowser(t *testing.T) {
	shell, full := -1, -1
	for i, c := range chromeCandidates {
		switch c {
		case "/usr/lib/chromium/chromium-headless-shell":
			shell = i
		case "/usr/lib/chromium/chromium":
			full = i
		}
	}
	if shell < 0 || full < 0 || shell > full {
		t.Errorf("chromeCandidates = %v: want Debian's headless shell before its full browser", chromeCandidates)
	}
}
