package sidecar

import (
	"bytes"
	"errors"
	"flag"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// testToken is a sidecar token long enough for the sidecar binary.
const testToken = "test-token-0123456789abcdef"

// withToken is envOf with GLIMPSE_SIDECAR_TOKEN set, unless m sets it.
func withToken(m map[string]string) func(string) (string, bool) {
	env := map[string]string{"GLIMPSE_SIDECAR_TOKEN": testToken}
	for k, v := range m {
		env[k] = v
	}
	return envOf(env)
}

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		check func(t *testing.T, cfg RunConfig)
	}{
		{
			name: "nothing given yields the documented defaults",
			check: func(t *testing.T, cfg RunConfig) {
				s := cfg.Sidecar
				if s.Addr != ":9230" || s.RecycleAfter != 500 || s.RecycleGrace != 75*time.Second || s.RecycleMemory != 0 || s.ChromePath != "" || len(cfg.AllowTargets) != 0 || s.Logger == nil {
					t.Errorf("defaults = %+v", cfg)
				}
			},
		},
		{
			name: "environment variables are read",
			env: map[string]string{
				"GLIMPSE_SIDECAR_ADDR": "127.0.0.1:1234", "GLIMPSE_CHROME_PATH": "/opt/chromium", "GLIMPSE_RECYCLE_AFTER": "7",
				"GLIMPSE_RECYCLE_GRACE": "2m", "GLIMPSE_RECYCLE_MEMORY": "1.5GiB", "GLIMPSE_ALLOW_TARGETS": "127.0.0.0/8, ::1",
				"GLIMPSE_CHROME_FLAGS": "--lang=de  --window-size=800,600", "GLIMPSE_LOG_FORMAT": "json",
			},
			check: func(t *testing.T, cfg RunConfig) {
				s := cfg.Sidecar
				if s.Addr != "127.0.0.1:1234" || s.ChromePath != "/opt/chromium" || s.RecycleAfter != 7 || s.RecycleGrace != 2*time.Minute || s.RecycleMemory != 3<<29 {
					t.Errorf("sidecar config = %+v", s)
				}
				if want := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}; len(cfg.AllowTargets) != 2 || cfg.AllowTargets[0] != want[0] || cfg.AllowTargets[1] != want[1] {
					t.Errorf("AllowTargets = %v, want %v", cfg.AllowTargets, want)
				}
				if len(s.ExtraFlags) != 2 || s.ExtraFlags[1] != "--window-size=800,600" {
					t.Errorf("ExtraFlags = %q", s.ExtraFlags)
				}
			},
		},
		{
			name: "names the guard resolves without DNS are read",
			env:  map[string]string{"GLIMPSE_DEV_HOSTS": "www.googletagmanager.com=127.0.0.1, fonts.gstatic.com=127.0.0.1"},
			check: func(t *testing.T, cfg RunConfig) {
				lo := netip.MustParseAddr("127.0.0.1")
				if len(cfg.Hosts) != 2 || cfg.Hosts["www.googletagmanager.com"] != lo || cfg.Hosts["fonts.gstatic.com"] != lo {
					t.Errorf("Hosts = %v", cfg.Hosts)
				}
			},
		},
		{
			name: "a flag wins over its variable",
			args: []string{"--recycle-after", "3", "--addr=:1"},
			env:  map[string]string{"GLIMPSE_RECYCLE_AFTER": "9", "GLIMPSE_SIDECAR_ADDR": ":2"},
			check: func(t *testing.T, cfg RunConfig) {
				if cfg.Sidecar.RecycleAfter != 3 || cfg.Sidecar.Addr != ":1" {
					t.Errorf("RecycleAfter, Addr = %d, %q; want the flags' 3, :1", cfg.Sidecar.RecycleAfter, cfg.Sidecar.Addr)
				}
			},
		},
		{
			name: "zero turns recycling off",
			env:  map[string]string{"GLIMPSE_RECYCLE_AFTER": "0"},
			check: func(t *testing.T, cfg RunConfig) {
				if cfg.Sidecar.RecycleAfter != 0 {
					t.Errorf("RecycleAfter = %d, want 0", cfg.Sidecar.RecycleAfter)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ParseFlags(tt.args, withToken(tt.env), &bytes.Buffer{})
			if err != nil {
				t.Fatalf("ParseFlags: %v", err)
			}
			tt.check(t, cfg)
		})
	}
}

func TestParseFlagsNamesTheBadSetting(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want []string
	}{
		{name: "a bad variable names the variable, the value and what is accepted", env: map[string]string{"GLIMPSE_RECYCLE_AFTER": "many"}, want: []string{`GLIMPSE_RECYCLE_AFTER="many"`, "whole number of pages"}},
		{name: "a bad flag names the flag", args: []string{"--recycle-after=-2"}, want: []string{`--recycle-after="-2"`, "0 or more"}},
		{name: "a bad allow-list names the bad item", env: map[string]string{"GLIMPSE_ALLOW_TARGETS": "127.0.0.0/8,nonsense"}, want: []string{`GLIMPSE_ALLOW_TARGETS="127.0.0.0/8,nonsense"`, "nonsense"}},
		{name: "a bad log format lists the formats", env: map[string]string{"GLIMPSE_LOG_FORMAT": "xml"}, want: []string{`GLIMPSE_LOG_FORMAT="xml"`, "text or json"}},
		{name: "a bad log level lists the levels", args: []string{"--log-level=loud"}, want: []string{`--log-level="loud"`, "debug, info, warn or error"}},
		{name: "a bad grace period asks for a duration", env: map[string]string{"GLIMPSE_RECYCLE_GRACE": "30"}, want: []string{`GLIMPSE_RECYCLE_GRACE="30"`, "positive duration"}},
		{name: "a bad memory size asks for a size", env: map[string]string{"GLIMPSE_RECYCLE_MEMORY": "lots"}, want: []string{`GLIMPSE_RECYCLE_MEMORY="lots"`, "1.5GiB"}},
		{name: "a bad host pair names the pair and the form", env: map[string]string{"GLIMPSE_DEV_HOSTS": "ads.example.com"}, want: []string{`GLIMPSE_DEV_HOSTS="ads.example.com"`, "name=address"}},
		{name: "an empty address is refused", env: map[string]string{"GLIMPSE_SIDECAR_ADDR": " "}, want: []string{"GLIMPSE_SIDECAR_ADDR", "listen address"}},
		{name: "several bad settings are all reported", env: map[string]string{"GLIMPSE_RECYCLE_AFTER": "x", "GLIMPSE_LOG_FORMAT": "y"}, want: []string{"GLIMPSE_RECYCLE_AFTER", "GLIMPSE_LOG_FORMAT"}},
		{name: "a stray argument is refused", args: []string{"serve"}, want: []string{`unexpected argument "serve"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFlags(tt.args, withToken(tt.env), &bytes.Buffer{})
			if err == nil {
				t.Fatal("ParseFlags succeeded, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestParseFlagsReadsTheSidecarToken(t *testing.T) {
	t.Run("the variable is read into the sidecar's config", func(t *testing.T) {
		cfg, err := ParseFlags(nil, withToken(nil), &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Sidecar.Token != testToken {
			t.Errorf("Token = %q, want the variable's value", cfg.Sidecar.Token)
		}
	})
	t.Run("the flag wins over the variable and surrounding blanks are dropped", func(t *testing.T) {
		cfg, err := ParseFlags([]string{"--sidecar-token", " flag-token-0123456789\n"}, withToken(nil), &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Sidecar.Token != "flag-token-0123456789" {
			t.Errorf("Token = %q, want the flag's value without blanks", cfg.Sidecar.Token)
		}
	})

	const secretValue = "short-secret"
	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{name: "without a token the sidecar refuses to start and names the variable", env: nil,
			want: []string{"GLIMPSE_SIDECAR_TOKEN is not set", "refuses to start"}},
		{name: "an empty token counts as none", env: map[string]string{"GLIMPSE_SIDECAR_TOKEN": "  "},
			want: []string{"GLIMPSE_SIDECAR_TOKEN is not set"}},
		{name: "a short token is refused with the minimum length", env: map[string]string{"GLIMPSE_SIDECAR_TOKEN": secretValue},
			want: []string{"GLIMPSE_SIDECAR_TOKEN is 12 characters long", "at least 16"}},
		{name: "a token with a control character is refused", env: map[string]string{"GLIMPSE_SIDECAR_TOKEN": "0123456789abcdef\x01" + secretValue},
			want: []string{"GLIMPSE_SIDECAR_TOKEN holds a character other than printable ASCII"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFlags(nil, envOf(tt.env), &bytes.Buffer{})
			if err == nil {
				t.Fatal("ParseFlags succeeded, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if strings.Contains(err.Error(), secretValue) {
				t.Errorf("error %q repeats the token", err)
			}
		})
	}
}

func TestHelpListsEveryFlagWithItsVariable(t *testing.T) {
	var out bytes.Buffer
	_, err := ParseFlags([]string{"--help"}, envOf(nil), &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("ParseFlags(--help) = %v, want flag.ErrHelp", err)
	}
	for _, pair := range [][2]string{
		{"--addr", "GLIMPSE_SIDECAR_ADDR"},
		{"--chrome-path", "GLIMPSE_CHROME_PATH"},
		{"--chrome-flags", "GLIMPSE_CHROME_FLAGS"},
		{"--recycle-after", "GLIMPSE_RECYCLE_AFTER"},
		{"--recycle-grace", "GLIMPSE_RECYCLE_GRACE"},
		{"--recycle-memory", "GLIMPSE_RECYCLE_MEMORY"},
		{"--allow-targets", "GLIMPSE_ALLOW_TARGETS"},
		{"--dev-hosts", "GLIMPSE_DEV_HOSTS"},
		{"--log-format", "GLIMPSE_LOG_FORMAT"},
		{"--log-level", "GLIMPSE_LOG_LEVEL"},
		{"--sidecar-token", "GLIMPSE_SIDECAR_TOKEN"},
	} {
		found := false
		for line := range strings.Lines(out.String()) {
			if strings.Contains(line, pair[0]+" ") && strings.Contains(line, pair[1]) {
				found = true
			}
		}
		if !found {
			t.Errorf("help has no line with %s and %s:\n%s", pair[0], pair[1], out.String())
		}
	}
}

func TestParseBytes(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    int64
		wantErr bool
	}{
		{name: "a plain number is bytes", in: "1024", want: 1024},
		{name: "zero means never", in: "0", want: 0},
		{name: "binary units are powers of 1024", in: "1.5GiB", want: 3 << 29},
		{name: "decimal units are powers of 1000", in: "800MB", want: 800e6},
		{name: "units ignore case and a blank", in: "2 mib", want: 2 << 20},
		{name: "a unit alone is refused", in: "GiB", wantErr: true},
		{name: "an unknown unit is refused", in: "3 parsecs", wantErr: true},
		{name: "a negative size is refused", in: "-1", wantErr: true},
		{name: "an absurd size is refused", in: "99999999999GiB", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseBytes(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ParseBytes(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}
