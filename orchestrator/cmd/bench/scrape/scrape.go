package scrape

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Snapshot is one reading of every metric family.
type Snapshot map[string]*dto.MetricFamily

// Fetch reads url (a /metrics endpoint) with client.
func Fetch(ctx context.Context, client *http.Client, url string) (Snapshot, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reading metrics from %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("reading metrics from %s: HTTP %d: %s", url, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	return Parse(resp.Body)
}

// Parse reads the text exposition format.
func Parse(r io.Reader) (Snapshot, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parsing metrics: %w", err)
	}
	return Snapshot(fams), nil
}

// matches reports whether m carries every label of want.
func matches(m *dto.Metric, want map[string]string) bool {
	for k, v := range want {
		found := false
		for _, lp := range m.GetLabel() {
			if lp.GetName() == k {
				found = lp.GetValue() == v
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Value sums the counters or gauges of family name whose labels include
// labels (nil: every series); 0 when there is none.
func (s Snapshot) Value(name string, labels map[string]string) float64 {
	f := s[name]
	if f == nil {
		return 0
	}
	var sum float64
	for _, m := range f.GetMetric() {
		if !matches(m, labels) {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Untyped != nil:
			sum += m.GetUntyped().GetValue()
		}
	}
	return sum
}

// Histogram is one histogram series (or the sum of several): cumulative
// counts at each upper bound, ending with +Inf.
type Histogram struct {
	Bounds []float64
	Counts []float64 // cumulative, same length as Bounds
	Count  float64
	Sum    float64
}

// Histogram returns the histograms of family name with labels, added up.
func (s Snapshot) Histogram(name string, labels map[string]string) Histogram {
	var h Histogram
	f := s[name]
	if f == nil {
		return h
	}
	for _, m := range f.GetMetric() {
		if m.Histogram == nil || !matches(m, labels) {
			continue
		}
		mh := m.GetHistogram()
		h.Count += float64(mh.GetSampleCount())
		h.Sum += mh.GetSampleSum()
		for _, b := range mh.GetBucket() {
			i := slices.Index(h.Bounds, b.GetUpperBound())
			if i < 0 {
				h.Bounds = append(h.Bounds, b.GetUpperBound())
				h.Counts = append(h.Counts, 0)
				i = len(h.Bounds) - 1
			}
			h.Counts[i] += float64(b.GetCumulativeCount())
		}
	}
	if len(h.Bounds) == 0 || !math.IsInf(h.Bounds[len(h.Bounds)-1], 1) {
		h.Bounds = append(h.Bounds, math.Inf(1))
		h.Counts = append(h.Counts, h.Count)
	}
	return h
}

// Sub is what was observed between before and h, for series with the same
// buckets.
func (h Histogram) Sub(before Histogram) Histogram {
	out := Histogram{Bounds: slices.Clone(h.Bounds), Counts: slices.Clone(h.Counts), Count: h.Count - before.Count, Sum: h.Sum - before.Sum}
	for i, b := range out.Bounds {
		if j := slices.Index(before.Bounds, b); j >= 0 {
			out.Counts[i] -= before.Counts[j]
		}
	}
	return out
}

// Mean is the average observation, 0 without any.
func (h Histogram) Mean() float64 {
	if h.Count == 0 {
		return 0
	}
	return h.Sum / h.Count
}

// Quantile estimates the q-quantile by linear interpolation inside the
// bucket it falls in, as PromQL's histogram_quantile does; a quantile in the
// +Inf bucket reports the largest finite bound. NaN without observations.
func (h Histogram) Quantile(q float64) float64 {
	if h.Count == 0 || len(h.Bounds) == 0 {
		return math.NaN()
	}
	rank := q * h.Count
	lower, below := 0.0, 0.0
	for i, ub := range h.Bounds {
		c := h.Counts[i]
		if c >= rank {
			if math.IsInf(ub, 1) {
				return lower
			}
			if c == below {
				return ub
			}
			return lower + (ub-lower)*(rank-below)/(c-below)
		}
		if !math.IsInf(ub, 1) {
			lower = ub
		}
		below = c
	}
	return lower
}

// Add is the sum of two readings of series with the same buckets, as if
// one series had seen both; the zero Histogram adds nothing.
func (h Histogram) Add(o Histogram) Histogram {
	counts := map[float64]float64{}
	for i, b := range h.Bounds {
		counts[b] += h.Counts[i]
	}
	for i, b := range o.Bounds {
		counts[b] += o.Counts[i]
	}
	out := Histogram{Count: h.Count + o.Count, Sum: h.Sum + o.Sum}
	for b := range counts {
		out.Bounds = append(out.Bounds, b)
	}
	slices.Sort(out.Bounds)
	for _, b := range out.Bounds {
		out.Counts = append(out.Counts, counts[b])
	}
	return out
}
