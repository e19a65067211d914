package answer

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/orchestrator/query"
)

// panickySource panics on every fetch, as a bug in a fetcher would.
type panickySource struct{}

func (panickySource) Open(context.Context, string) (io.ReadCloser, func(string) string, error) {
	panic("a fetcher's bug")
}

func TestAProbeThatPanicsLeavesItsAssetAsItWas(t *testing.T) {
	c := New(Config{Logger: slog.New(slog.DiscardHandler), Metrics: metrics.NewOrchestrator(prometheus.NewRegistry())})
	req, err := query.Parse("url=https://a.example/", query.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	for _, media := range []bool{true, false} {
		a := &Asset{URL: "https://a.example/clip.mp4", Type: "mp4"}
		c.probeDataAssets(t.Context(), req, panickySource{}, []dataAsset{{a: a, media: media}})
		if a.URL != "https://a.example/clip.mp4" || a.Type != "mp4" || a.Size != 0 {
			t.Errorf("the asset after a panicking probe (media %t) is %+v; want it as it was", media, a)
		}
	}
}
