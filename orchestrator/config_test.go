package orchestrator

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestConfigReadsFlagsOverVariablesOverDefaults(t *testing.T) {
	env := map[string]string{"GLIMPSE_QUEUE_SIZE": "9", "GLIMPSE_MAX_TIMEOUT": "45s", "GLIMPSE_LOG_FORMAT": "json"}
	cfg, err := LoadConfig([]string{"--queue-size=3"}, func(k string) string { return env[k] }, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.QueueSize != 3 || cfg.MaxTimeout != 45*time.Second || cfg.LogFormat != "json" || cfg.Addr != ":3000" {
		t.Errorf("got queue %d, max timeout %s, log format %q, addr %q", cfg.QueueSize, cfg.MaxTimeout, cfg.LogFormat, cfg.Addr)
	}
}

func TestConfigTakesARedisURL(t *testing.T) {
	for _, u := range []string{"", "redis://:pw@redis.glimpse.svc.cluster.local:6379/0", "rediss://user:pw@cache.example.com:6380"} {
		cfg, err := LoadConfig(nil, func(k string) string { return map[string]string{"GLIMPSE_REDIS_URL": u}[k] }, &bytes.Buffer{})
		if err != nil || cfg.RedisURL != u {
			t.Errorf("GLIMPSE_REDIS_URL=%q: got %q, %v", u, cfg.RedisURL, err)
		}
	}
}

func TestConfigTakesADocsURL(t *testing.T) {
	for _, u := range []string{"", "https://git.example.com/ops/glimpse/-/blob/main/docs/api.md", "http://docs.internal:8080/errors"} {
		cfg, err := LoadConfig(nil, func(k string) string { return map[string]string{"GLIMPSE_DOCS_URL": u}[k] }, &bytes.Buffer{})
		if err != nil || cfg.DocsURL != u {
			t.Errorf("GLIMPSE_DOCS_URL=%q: got %q, %v", u, cfg.DocsURL, err)
		}
	}
}

func TestConfigRefusalsNameTheSettingTheValueAndWhatIsAccepted(t *testing.T) {
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want []string
	}{
		{name: "a bad number", env: map[string]string{"GLIMPSE_QUEUE_SIZE": "lots"},
			want: []string{`GLIMPSE_QUEUE_SIZE="lots" is not valid`, "whole number of at least 1"}},
		{name: "a bad flag and a bad variable together", args: []string{"--log-level=loud"}, env: map[string]string{"GLIMPSE_CACHE_BYTES": "-1"},
			want: []string{`--log-level="loud"`, "debug, info, warn or error", `GLIMPSE_CACHE_BYTES="-1"`}},
		{name: "sidecars without their token", env: map[string]string{"GLIMPSE_SIDECARS": "sidecar:9230"},
			want: []string{"GLIMPSE_SIDECAR_TOKEN is empty"}},
		{name: "S3 without credentials", env: map[string]string{"GLIMPSE_S3_ENDPOINT": "minio:9000"},
			want: []string{"GLIMPSE_S3_ACCESS_KEY"}},
		{name: "a Redis URL of another scheme", env: map[string]string{"GLIMPSE_REDIS_URL": "http://:hunter2@redis:6379"},
			want: []string{"GLIMPSE_REDIS_URL", "does not start with redis:// or rediss://", "want redis://[:password@]host[:port][/db]"}},
		{name: "a docs URL that is not absolute", env: map[string]string{"GLIMPSE_DOCS_URL": "docs/api.md"},
			want: []string{`GLIMPSE_DOCS_URL="docs/api.md"`, "absolute http or https URL"}},
		{name: "a docs URL with its own anchor", env: map[string]string{"GLIMPSE_DOCS_URL": "https://docs.example.com/api#errors"},
			want: []string{"GLIMPSE_DOCS_URL", "without a #fragment"}},
		{name: "a Redis URL with a database that is not a number", env: map[string]string{"GLIMPSE_REDIS_URL": "redis://:hunter2@redis:6379/quotas"},
			want: []string{"GLIMPSE_REDIS_URL", "invalid database number"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadConfig(tc.args, func(k string) string { return tc.env[k] }, &bytes.Buffer{})
			if err == nil {
				t.Fatal("the configuration was accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("%q repeats a password", err)
			}
		})
	}
}

func TestTheEmbeddedGuardBlocksTheListAndTheConfiguredHosts(t *testing.T) {
	listed := adblockListed([]string{"ads-test.localhost"})
	if !listed("pixel.ads-test.localhost") || !listed("ADS-TEST.localhost.") || listed("page.localhost") {
		t.Error("a configured host does not block by suffix")
	}
	if !listed("securepubads.g.doubleclick.net") || !adblockListed(nil)("securepubads.g.doubleclick.net") {
		t.Error("the embedded list is not consulted")
	}
	if adblockListed(nil)("ads-test.localhost") {
		t.Error("a host no one configured is blocked")
	}
}
