package storage

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/lifecycle"
)

// DefaultExpireAfterDays outlives every cached answer, and so every file an
// answer names: a ttl of at most 31 days, then a staleTtl of at most 31
// days, plus a day of grace.
const DefaultExpireAfterDays = 63

// IDs of the bucket lifecycle rules glimpse owns. Rules with other IDs
// belong to the operator and are kept as they are; the chart's MinIO bucket
// job sets rules with the same IDs.
const (
	LifecycleRuleCache = "glimpse-cache"
	LifecycleRuleFiles = "glimpse-files"
)

// abortUploadsAfterDays drops the parts of uploads nobody completed or
// aborted, which a crash in the middle of a Put leaves behind. MinIO ignores
// this action and cleans such uploads up by itself after a day.
const abortUploadsAfterDays = 1

// LifecycleRules returns the rules glimpse keeps on its bucket: objects
// under cache/ and files/ expire expireAfterDays days after they were
// written, and unfinished uploads there are aborted after a day. The
// action sits in the expiry rules because MinIO refuses a rule whose only
// action is aborting uploads.
func LifecycleRules(expireAfterDays int) []lifecycle.Rule {
	rule := func(id, prefix string) lifecycle.Rule {
		return lifecycle.Rule{
			ID:         id,
			Status:     "Enabled",
			RuleFilter: lifecycle.Filter{Prefix: prefix},
			Expiration: lifecycle.Expiration{Days: lifecycle.ExpirationDays(expireAfterDays)},
			AbortIncompleteMultipartUpload: lifecycle.AbortIncompleteMultipartUpload{
				DaysAfterInitiation: abortUploadsAfterDays,
			},
		}
	}
	return []lifecycle.Rule{rule(LifecycleRuleCache, cachePrefix), rule(LifecycleRuleFiles, PublicPrefix)}
}

// What ensureLifecycle did.
type lifecycleOutcome int

const (
	lifecycleUnchanged lifecycleOutcome = iota // glimpse's rules were already in place
	lifecycleSet                               // glimpse's rules were added or updated
	lifecycleRefused                           // the endpoint would not let glimpse read or set them
)

// ensureLifecycle makes glimpse's rules part of the bucket's lifecycle
// configuration: it reads the configuration, replaces the rules with
// glimpse's IDs, keeps every other rule, and writes it back only when
// something changed. When the credentials may not read or write the
// configuration, or the service has no lifecycle support, it logs who must
// set the rules instead and lets glimpse carry on; an unreachable endpoint
// is an error, as for the other start-up checks.
func (s *S3) ensureLifecycle(ctx context.Context, expireAfterDays int) (lifecycleOutcome, error) {
	current, err := s.client.GetBucketLifecycle(ctx, s.bucket)
	switch {
	case err == nil:
	case minio.ToErrorResponse(err).Code == "NoSuchLifecycleConfiguration":
		current = lifecycle.NewConfiguration()
	default:
		return s.lifecycleFailed("reading", expireAfterDays, err)
	}
	want := mergeLifecycle(current, LifecycleRules(expireAfterDays))
	if sameRules(current, want) {
		return lifecycleUnchanged, nil
	}
	if err := s.client.SetBucketLifecycle(ctx, s.bucket, want); err != nil {
		return s.lifecycleFailed("setting", expireAfterDays, err)
	}
	slog.Info("storage: set the S3 bucket's lifecycle rules", "bucket", s.bucket, "endpoint", s.endpoint,
		"expireAfterDays", expireAfterDays, "rules", []string{LifecycleRuleCache, LifecycleRuleFiles})
	return lifecycleSet, nil
}

func (s *S3) lifecycleFailed(doing string, expireAfterDays int, err error) (lifecycleOutcome, error) {
	what := fmt.Sprintf("%s the lifecycle rules of bucket %q", doing, s.bucket)
	if lifecycleRefusal(err) {
		slog.Warn("storage: the S3 endpoint refused "+what+", so nothing deletes old cache entries and files; "+
			"the chart's MinIO bucket job sets these rules, otherwise an operator must add rules that expire cache/ and files/ "+
			"(or give glimpse's credentials s3:GetLifecycleConfiguration and s3:PutLifecycleConfiguration)",
			"bucket", s.bucket, "endpoint", s.endpoint, "expireAfterDays", expireAfterDays, "err", err)
		return lifecycleRefused, nil
	}
	ferr := s.fail(what, "", err)
	if errors.Is(ferr, ErrUnavailable) || errors.Is(err, context.Canceled) {
		return lifecycleRefused, ferr
	}
	// A configuration this service does not accept, or any other refusal,
	// should not keep glimpse from serving; it must not go unnoticed either.
	slog.Warn("storage: could not set the S3 bucket's lifecycle rules, so nothing deletes old cache entries and files; an operator must add rules that expire cache/ and files/",
		"bucket", s.bucket, "endpoint", s.endpoint, "expireAfterDays", expireAfterDays, "err", ferr)
	return lifecycleRefused, nil
}

// lifecycleRefusal reports whether err says the credentials may not manage
// lifecycle rules, or the service does not offer them.
func lifecycleRefusal(err error) bool {
	resp := minio.ToErrorResponse(err)
	switch resp.Code {
	case "AccessDenied", "NotImplemented", "MethodNotAllowed":
		return true
	}
	switch resp.StatusCode {
	case http.StatusForbidden, http.StatusNotImplemented, http.StatusMethodNotAllowed:
		return true
	}
	return false
}

// mergeLifecycle returns current with glimpse's rules in place of the rules
// with their IDs, every other rule kept, and the order kept too, so that a
// bucket already set up compares equal and is not written again.
func mergeLifecycle(current *lifecycle.Configuration, ours []lifecycle.Rule) *lifecycle.Configuration {
	byID := map[string]lifecycle.Rule{}
	for _, r := range ours {
		byID[r.ID] = r
	}
	placed := map[string]bool{}
	merged := lifecycle.NewConfiguration()
	for _, r := range current.Rules {
		mine, owned := byID[r.ID]
		switch {
		case !owned:
			merged.Rules = append(merged.Rules, r)
		case !placed[r.ID]:
			merged.Rules = append(merged.Rules, mine)
			placed[r.ID] = true
		}
	}
	for _, r := range ours {
		if !placed[r.ID] {
			merged.Rules = append(merged.Rules, r)
		}
	}
	return merged
}

// sameRules compares two configurations as the service would receive them,
// rule order included. A rule that lacks only the abort action of the rule
// it is compared with counts as the same: MinIO drops that action, and its
// buckets would otherwise be written again at every start.
func sameRules(current, want *lifecycle.Configuration) bool {
	if len(current.Rules) != len(want.Rules) {
		return false
	}
	for i := range current.Rules {
		lenient := want.Rules[i]
		lenient.AbortIncompleteMultipartUpload = lifecycle.AbortIncompleteMultipartUpload{}
		if !sameRule(current.Rules[i], want.Rules[i]) && !sameRule(current.Rules[i], lenient) {
			return false
		}
	}
	return true
}

func sameRule(a, b lifecycle.Rule) bool {
	x, errX := xml.Marshal(a)
	y, errY := xml.Marshal(b)
	return errX == nil && errY == nil && bytes.Equal(x, y)
}
