package envflag

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"
)

type testConfig struct {
	addr    string
	workers int
	grace   time.Duration
	format  string
	token   string
}

func (c *testConfig) settings() []Setting {
	return []Setting{
		{Flag: "addr", Env: "T_ADDR", Default: ":3000", Usage: "listen address", Parse: String(&c.addr)},
		{Flag: "workers", Env: "T_WORKERS", Default: "4", Usage: "workers", Parse: Int(&c.workers, 1)},
		{Flag: "grace", Env: "T_GRACE", Default: "30s", Usage: "grace", Parse: Duration(&c.grace)},
		{Flag: "token", Env: "T_TOKEN", Secret: true, Usage: "secret", Parse: func(v string) error {
			if v != "" && len(v) < 16 {
				return errors.New("is too short")
			}
			c.token = v
			return nil
		}},
		{Flag: "log-format", Env: "T_LOG_FORMAT", Default: "text", Usage: "log format", Parse: OneOf(&c.format, "text", "json")},
	}
}

func load(args []string, env map[string]string) (testConfig, string, error) {
	var c testConfig
	var out bytes.Buffer
	err := Load("t", "A test binary.", c.settings(), args, func(k string) string { return env[k] }, &out)
	return c, out.String(), err
}

func TestSettingsComeFromFlagsThenVariablesThenDefaults(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		env     map[string]string
		workers int
		addr    string
	}{
		{"nothing given keeps the defaults", nil, nil, 4, ":3000"},
		{"a variable beats the default", nil, map[string]string{"T_WORKERS": "8"}, 8, ":3000"},
		{"a flag beats its variable", []string{"--workers=2"}, map[string]string{"T_WORKERS": "8"}, 2, ":3000"},
		{"an empty variable counts as unset", nil, map[string]string{"T_ADDR": ""}, 4, ":3000"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _, err := load(tc.args, tc.env)
			if err != nil {
				t.Fatal(err)
			}
			if c.workers != tc.workers || c.addr != tc.addr || c.grace != 30*time.Second || c.format != "text" {
				t.Errorf("got %+v", c)
			}
		})
	}
}

func TestEveryBadValueNamesItsSourceTheValueAndWhatIsAccepted(t *testing.T) {
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want []string
	}{
		{"a bad variable", nil, map[string]string{"T_WORKERS": "many"}, []string{`T_WORKERS="many" is not valid: want a whole number of at least 1`}},
		{"a bad flag", []string{"--grace=30"}, nil, []string{`--grace="30" is not valid: want a positive duration`}},
		{"a word outside the list", nil, map[string]string{"T_LOG_FORMAT": "xml"}, []string{`T_LOG_FORMAT="xml" is not valid: want text or json`}},
		{"several at once", []string{"--workers=0"}, map[string]string{"T_LOG_FORMAT": "xml"}, []string{`--workers="0"`, `T_LOG_FORMAT="xml"`}},
		{"a stray argument", []string{"serve"}, nil, []string{`unexpected argument "serve"`}},
		{"a secret is never quoted", nil, map[string]string{"T_TOKEN": "short-secret"}, []string{"T_TOKEN is too short"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := load(tc.args, tc.env)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "short-secret") {
				t.Errorf("%q quotes a secret", err)
			}
		})
	}
}

func TestHelpListsEveryFlagWithItsVariableAndDefault(t *testing.T) {
	_, out, err := load([]string{"--help"}, nil)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err = %v, want flag.ErrHelp", err)
	}
	for _, w := range []string{"A test binary.", "--workers", "T_WORKERS", `(default "4")`, "--log-format", "T_LOG_FORMAT"} {
		if !strings.Contains(out, w) {
			t.Errorf("the usage does not mention %q:\n%s", w, out)
		}
	}
}
