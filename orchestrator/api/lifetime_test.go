package api

import (
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/answer"
	"github.com/glimpse/glimpse/orchestrator/query"
)

func TestADegradedAnswerLivesBrieflyAndOnlyForCallersWithNoMoreTime(t *testing.T) {
	req := &query.Request{TTL: 24 * time.Hour, Stale: true, StaleTTL: time.Hour, Timeout: 10 * time.Second}
	cases := []struct {
		name                        string
		res                         answer.Result
		wantTTL, wantStale, wantCut time.Duration
	}{
		{"a whole answer lives its ttl, and is kept to be served stale once", answer.Result{}, 24 * time.Hour, staleKeep, 0},
		{"an answer cut short keeps its life but names its timeout", answer.Result{CutShort: true}, 24 * time.Hour, staleKeep, 10 * time.Second},
		{"a degraded answer lives a minute, never stale, and names its timeout", answer.Result{Degraded: true}, time.Minute, 0, 10 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ttl, stale, cut := lifetime(req, &tc.res)
			if ttl != tc.wantTTL || stale != tc.wantStale || cut != tc.wantCut {
				t.Errorf("lifetime = %s, %s, %s; want %s, %s, %s", ttl, stale, cut, tc.wantTTL, tc.wantStale, tc.wantCut)
			}
		})
	}
}
