package storage

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/lifecycle"
)

func TestLifecycleRulesExpireBothPrefixes(t *testing.T) {
	rules := LifecycleRules(40)
	want := map[string]string{LifecycleRuleCache: "cache/", LifecycleRuleFiles: "files/"}
	if len(rules) != len(want) {
		t.Fatalf("LifecycleRules has %d rules; want %d", len(rules), len(want))
	}
	for _, r := range rules {
		t.Run(r.ID+" expires its prefix and aborts unfinished uploads", func(t *testing.T) {
			if prefix, ok := want[r.ID]; !ok || r.RuleFilter.Prefix != prefix {
				t.Errorf("rule %q filters %q; want %q", r.ID, r.RuleFilter.Prefix, want[r.ID])
			}
			if r.Status != "Enabled" || r.Expiration.Days != 40 || r.AbortIncompleteMultipartUpload.DaysAfterInitiation != abortUploadsAfterDays {
				t.Errorf("rule %+v; want enabled, expiring after 40 days, aborting uploads after %d", r, abortUploadsAfterDays)
			}
		})
	}
}

func TestMergeLifecycle(t *testing.T) {
	foreign := lifecycle.Rule{ID: "operator-logs", Status: "Enabled", RuleFilter: lifecycle.Filter{Prefix: "logs/"},
		Expiration: lifecycle.Expiration{Days: 7}}
	stale := LifecycleRules(5)
	ours := LifecycleRules(63)
	ids := func(c *lifecycle.Configuration) []string {
		var out []string
		for _, r := range c.Rules {
			out = append(out, fmt.Sprintf("%s:%d", r.ID, r.Expiration.Days))
		}
		return out
	}
	cases := []struct {
		name    string
		current []lifecycle.Rule
		want    []string
		same    bool
	}{
		{"a bucket without rules gets glimpse's", nil,
			[]string{"glimpse-cache:63", "glimpse-files:63"}, false},
		{"an operator's rule is kept, before glimpse's", []lifecycle.Rule{foreign},
			[]string{"operator-logs:7", "glimpse-cache:63", "glimpse-files:63"}, false},
		{"glimpse's old rules are replaced where they stand", []lifecycle.Rule{stale[1], foreign, stale[0]},
			[]string{"glimpse-files:63", "operator-logs:7", "glimpse-cache:63"}, false},
		{"a missing rule of glimpse's is added", []lifecycle.Rule{ours[0], foreign},
			[]string{"glimpse-cache:63", "operator-logs:7", "glimpse-files:63"}, false},
		{"a bucket already set up compares equal", []lifecycle.Rule{foreign, ours[0], ours[1]},
			[]string{"operator-logs:7", "glimpse-cache:63", "glimpse-files:63"}, true},
		{"a bucket whose service dropped the abort action compares equal", []lifecycle.Rule{withoutAbort(ours[0]), withoutAbort(ours[1])},
			[]string{"glimpse-cache:63", "glimpse-files:63"}, true},
		{"a rule of glimpse's that an operator disabled is enabled again", []lifecycle.Rule{disabled(ours[0]), ours[1]},
			[]string{"glimpse-cache:63", "glimpse-files:63"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			current := &lifecycle.Configuration{Rules: tc.current}
			merged := mergeLifecycle(current, ours)
			if got := ids(merged); !slices.Equal(got, tc.want) {
				t.Errorf("merged rules %v; want %v", got, tc.want)
			}
			if got := sameRules(current, merged); got != tc.same {
				t.Errorf("sameRules = %v; want %v", got, tc.same)
			}
		})
	}
}

func TestLifecycleRefusalIsToldApartFromOtherErrors(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"access denied", minio.ErrorResponse{Code: "AccessDenied", StatusCode: http.StatusForbidden}, true},
		{"a 403 without a code", minio.ErrorResponse{StatusCode: http.StatusForbidden}, true},
		{"a service without lifecycle support", minio.ErrorResponse{Code: "NotImplemented", StatusCode: http.StatusNotImplemented}, true},
		{"a method the service does not offer", minio.ErrorResponse{Code: "MethodNotAllowed", StatusCode: http.StatusMethodNotAllowed}, true},
		{"a malformed configuration", minio.ErrorResponse{Code: "MalformedXML", StatusCode: http.StatusBadRequest}, false},
		{"an endpoint that is down", minio.ErrorResponse{Code: "ServiceUnavailable", StatusCode: http.StatusServiceUnavailable}, false},
		{"a network failure", context.DeadlineExceeded, false},
	}
	for _, tc := range cases {
		t.Run(tc.name+fmt.Sprintf(" is a refusal: %v", tc.want), func(t *testing.T) {
			if got := lifecycleRefusal(tc.err); got != tc.want {
				t.Errorf("lifecycleRefusal(%v) = %v; want %v", tc.err, got, tc.want)
			}
		})
	}
}

func withoutAbort(r lifecycle.Rule) lifecycle.Rule {
	r.AbortIncompleteMultipartUpload = lifecycle.AbortIncompleteMultipartUpload{}
	return r
}

func disabled(r lifecycle.Rule) lifecycle.Rule {
	r.Status = "Disabled"
	return r
}

// bucketRules reads the bucket's lifecycle rules back, by ID.
func bucketRules(t *testing.T, s *S3) map[string]lifecycle.Rule {
	t.Helper()
	cfg, err := s.client.GetBucketLifecycle(context.Background(), s.bucket)
	if minio.ToErrorResponse(err).Code == "NoSuchLifecycleConfiguration" {
		return map[string]lifecycle.Rule{}
	}
	if err != nil {
		t.Fatalf("GetBucketLifecycle: %v", err)
	}
	out := map[string]lifecycle.Rule{}
	for _, r := range cfg.Rules {
		out[r.ID] = r
	}
	return out
}

func assertGlimpseRules(t *testing.T, rules map[string]lifecycle.Rule, days int) {
	t.Helper()
	for id, prefix := range map[string]string{LifecycleRuleCache: "cache/", LifecycleRuleFiles: "files/"} {
		r, ok := rules[id]
		switch {
		case !ok:
			t.Errorf("the bucket has no rule %q", id)
		case r.Status != "Enabled" || r.RuleFilter.Prefix != prefix || int(r.Expiration.Days) != days:
			t.Errorf("rule %q is %+v; want it enabled, on %s, expiring after %d days", id, r, prefix, days)
		}
	}
}

func TestS3LifecycleAgainstMinIO(t *testing.T) {
	srv := sharedMinio(t)
	ctx := context.Background()
	open := func(t *testing.T, cfg S3Config) *S3 {
		t.Helper()
		cfg.Endpoint, cfg.AccessKey, cfg.SecretKey = srv.Endpoint, srv.AccessKey, srv.SecretKey
		if cfg.Bucket == "" {
			cfg.Bucket = "t-" + randomHex(8)
		}
		s, err := NewS3(ctx, cfg)
		if err != nil {
			t.Fatalf("NewS3: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}

	t.Run("a new bucket gets glimpse's rules with the default expiry", func(t *testing.T) {
		s := open(t, S3Config{})
		assertGlimpseRules(t, bucketRules(t, s), DefaultExpireAfterDays)
	})

	t.Run("an operator's rule is kept and glimpse's are brought up to date", func(t *testing.T) {
		first := open(t, S3Config{ExpireAfterDays: 5})
		foreign := lifecycle.Rule{ID: "operator-logs", Status: "Enabled", RuleFilter: lifecycle.Filter{Prefix: "logs/"},
			Expiration: lifecycle.Expiration{Days: 7}}
		cfg := &lifecycle.Configuration{Rules: append([]lifecycle.Rule{foreign}, LifecycleRules(5)...)}
		if err := first.client.SetBucketLifecycle(ctx, first.bucket, cfg); err != nil {
			t.Fatal(err)
		}

		second := open(t, S3Config{Bucket: first.bucket, ExpireAfterDays: 40})
		rules := bucketRules(t, second)
		assertGlimpseRules(t, rules, 40)
		if r, ok := rules["operator-logs"]; !ok || r.RuleFilter.Prefix != "logs/" || r.Expiration.Days != 7 {
			t.Errorf("the operator's rule became %+v (present: %v); want it as it was", r, ok)
		}
		if len(rules) != 3 {
			t.Errorf("the bucket has %d rules; want the operator's and glimpse's two", len(rules))
		}
	})

	t.Run("a second start leaves rules that are already right alone", func(t *testing.T) {
		s := open(t, S3Config{})
		outcome, err := s.ensureLifecycle(ctx, DefaultExpireAfterDays)
		if err != nil || outcome != lifecycleUnchanged {
			t.Errorf("ensureLifecycle on a bucket already set up = %v, %v; want it unchanged", outcome, err)
		}
	})

	t.Run("with SkipLifecycle the bucket's rules are not touched", func(t *testing.T) {
		s := open(t, S3Config{SkipLifecycle: true})
		if rules := bucketRules(t, s); len(rules) != 0 {
			t.Errorf("the bucket has rules %v; want none", rules)
		}
	})

	t.Run("credentials that may not manage lifecycle rules get a warning, not a failed start", func(t *testing.T) {
		bucket := open(t, S3Config{SkipLifecycle: true}).bucket
		// Temporary credentials whose session policy allows everything but
		// lifecycle configuration, as a narrowly scoped key would.
		policy := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[`+
			`{"Effect":"Allow","Action":["s3:*"],"Resource":["arn:aws:s3:::%[1]s","arn:aws:s3:::%[1]s/*"]},`+
			`{"Effect":"Deny","Action":["s3:GetLifecycleConfiguration","s3:PutLifecycleConfiguration"],"Resource":["arn:aws:s3:::%[1]s"]}]}`, bucket)
		creds, err := credentials.NewSTSAssumeRole(srv.URL(), credentials.STSAssumeRoleOptions{
			AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, Policy: policy, DurationSeconds: 900,
		})
		if err != nil {
			t.Fatal(err)
		}
		s, err := newS3(S3Config{Endpoint: srv.Endpoint, Bucket: bucket, AccessKey: "unused", SecretKey: "unused"})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		s.client, err = minio.New(srv.Endpoint, &minio.Options{Creds: creds, Region: s.region, Transport: s.transport})
		if err != nil {
			t.Fatal(err)
		}
		s.core = minio.Core{Client: s.client}
		if err := s.Ping(ctx); err != nil {
			t.Fatalf("the restricted credentials cannot even reach the bucket: %v", err)
		}

		start := time.Now()
		outcome, err := s.ensureLifecycle(ctx, DefaultExpireAfterDays)
		if err != nil || outcome != lifecycleRefused {
			t.Errorf("ensureLifecycle with credentials that may not = %v, %v; want it refused without an error", outcome, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("giving up took %s; a refusal is not worth retrying", d)
		}
		if rules := bucketRules(t, open(t, S3Config{Bucket: bucket, SkipLifecycle: true})); len(rules) != 0 {
			t.Errorf("the bucket has rules %v; the refused credentials should have set none", rules)
		}
	})
}
