// Package boost is a small ensemble of shallow regression trees boosted on
// the logistic loss: the classifier the markdown package's block model is
// made of. Training bins each feature into quantiles and grows the trees
// level by level from histograms of gradients; a trained model keeps its
// thresholds in the features' own units, so predicting needs no bins. It
// is deterministic: the same samples and parameters give the same model.
package boost

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
)

// Model is a trained ensemble: the log-odds of a sample are Base plus the
// value of the leaf it reaches in each tree.
type Model struct {
	// Features names each column of a sample, in order.
	Features []string `json:"features"`
	Base     float64  `json:"base"`
	Trees    []Tree   `json:"trees"`
}

// Tree is one tree in flat arrays: node i splits on Feature[i] (a sample
// whose value is at most Threshold[i] goes to Left[i], else to Right[i]),
// or is a leaf when Feature[i] is -1, worth Value[i].
type Tree struct {
	Feature   []int     `json:"f"`
	Threshold []float32 `json:"t"`
	Left      []int     `json:"l"`
	Right     []int     `json:"r"`
	Value     []float32 `json:"v"`
}

// Check reports a model whose trees would send a sample out of bounds.
func (m *Model) Check() error {
	if m == nil {
		return errors.New("no model")
	}
	for ti, t := range m.Trees {
		n := len(t.Feature)
		if n == 0 || len(t.Threshold) != n || len(t.Left) != n || len(t.Right) != n || len(t.Value) != n {
			return fmt.Errorf("tree %d: its arrays differ in length", ti)
		}
		for i := range n {
			if t.Feature[i] < 0 {
				continue
			}
			if t.Feature[i] >= len(m.Features) {
				return fmt.Errorf("tree %d: node %d splits on feature %d of %d", ti, i, t.Feature[i], len(m.Features))
			}
			// Children come after their parent, so every walk ends.
			if t.Left[i] <= i || t.Left[i] >= n || t.Right[i] <= i || t.Right[i] >= n {
				return fmt.Errorf("tree %d: node %d has a child out of order", ti, i)
			}
		}
	}
	return nil
}

// Predict is the probability that the sample x is positive. x holds one
// value per feature; Check must have accepted the model.
func (m *Model) Predict(x []float32) float64 {
	s := m.Base
	for i := range m.Trees {
		t := &m.Trees[i]
		n := 0
		for t.Feature[n] >= 0 {
			if x[t.Feature[n]] <= t.Threshold[n] {
				n = t.Left[n]
			} else {
				n = t.Right[n]
			}
		}
		s += float64(t.Value[n])
	}
	return 1 / (1 + math.Exp(-s))
}

// Params are the training parameters.
type Params struct {
	Trees        int     // rounds of boosting
	Depth        int     // levels of splits in a tree
	Rate         float64 // shrinkage of each tree's values
	Lambda       float64 // L2 penalty on leaf values
	MinHessian   float64 // least weight of a leaf, in hessian units
	Bins         int     // most quantile bins of a feature, at most 255
	Workers      int     // goroutines building histograms; 0 for GOMAXPROCS
	Log          func(round int, loss float64)
	LogEvery     int
	FeatureNames []string
}

// DefaultParams are small trees, enough of them to learn interactions of a
// few features, few enough for a model file of a few hundred kB.
func DefaultParams() Params {
	return Params{Trees: 120, Depth: 5, Rate: 0.15, Lambda: 1, MinHessian: 1, Bins: 64}
}

// Train fits a model to the samples x (one row per sample, one column per
// feature), the labels y (0 or 1) and the weights w.
func Train(x [][]float32, y, w []float32, p Params) (*Model, error) {
	n := len(x)
	if n == 0 || len(y) != n || len(w) != n {
		return nil, errors.New("boost: the samples, labels and weights differ in number or are none")
	}
	nf := len(x[0])
	if len(p.FeatureNames) != nf {
		return nil, fmt.Errorf("boost: %d feature names for %d columns", len(p.FeatureNames), nf)
	}
	if p.Bins < 2 || p.Bins > 255 {
		p.Bins = 64
	}
	if p.Workers <= 0 {
		p.Workers = runtime.GOMAXPROCS(0)
	}
	// Quantile bins per feature: edges[f][b] is the largest value of bin b.
	edges := make([][]float32, nf)
	binned := make([][]uint8, nf) // column-major
	col := make([]float32, n)
	for f := range nf {
		for i := range n {
			col[i] = x[i][f]
		}
		edges[f] = quantileEdges(col, p.Bins)
		b := make([]uint8, n)
		for i, v := range col {
			b[i] = uint8(sort.Search(len(edges[f]), func(k int) bool { return edges[f][k] >= v }))
		}
		binned[f] = b
	}
	var sw, sy float64
	for i := range n {
		sw += float64(w[i])
		sy += float64(w[i] * y[i])
	}
	prior := min(max(sy/sw, 1e-6), 1-1e-6)
	m := &Model{Features: append([]string(nil), p.FeatureNames...), Base: math.Log(prior / (1 - prior))}
	score := make([]float64, n)
	for i := range score {
		score[i] = m.Base
	}
	g := make([]float64, n)
	h := make([]float64, n)
	rows := make([]int32, n)
	for round := range p.Trees {
		loss := 0.0
		for i := range n {
			pr := 1 / (1 + math.Exp(-score[i]))
			g[i] = float64(w[i]) * (pr - float64(y[i]))
			h[i] = float64(w[i]) * max(pr*(1-pr), 1e-6)
			if y[i] > 0 {
				loss -= float64(w[i]) * math.Log(max(pr, 1e-12))
			} else {
				loss -= float64(w[i]) * math.Log(max(1-pr, 1e-12))
			}
		}
		if p.Log != nil && p.LogEvery > 0 && round%p.LogEvery == 0 {
			p.Log(round, loss/sw)
		}
		for i := range rows {
			rows[i] = int32(i)
		}
		t := grow(binned, edges, g, h, rows, p)
		for i := range n {
			nd := 0
			for t.Feature[nd] >= 0 {
				if x[i][t.Feature[nd]] <= t.Threshold[nd] {
					nd = t.Left[nd]
				} else {
					nd = t.Right[nd]
				}
			}
			score[i] += float64(t.Value[nd])
		}
		m.Trees = append(m.Trees, t)
	}
	return m, nil
}

// quantileEdges are up to bins upper edges splitting the values into
// groups of about equal size; equal values stay in one bin.
func quantileEdges(col []float32, bins int) []float32 {
	s := append([]float32(nil), col...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	var out []float32
	for b := 1; b <= bins; b++ {
		v := s[min(len(s)-1, b*len(s)/bins)]
		if b == bins {
			v = s[len(s)-1]
		}
		if len(out) == 0 || v > out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

// node is a node being grown: its rows are rows[lo:hi], and hist the
// histograms of their gradients.
type node struct {
	index  int
	lo, hi int
	g, h   float64
	hist   hist
}

// hist holds, per feature and bin, the sums of gradients and hessians of
// a node's rows: [feature][bin][g, h], flattened.
type hist []float64

// buildHist sums the gradients of rows by feature and bin, a feature per
// worker at a time.
func buildHist(binned [][]uint8, g, h []float64, rows []int32, workers int) hist {
	nf := len(binned)
	out := make(hist, nf*512)
	var wg sync.WaitGroup
	work := make(chan int)
	for range min(workers, nf) {
		wg.Go(func() {
			for f := range work {
				hf := out[f*512 : (f+1)*512]
				col := binned[f]
				for _, r := range rows {
					b := int(col[r]) * 2
					hf[b] += g[r]
					hf[b+1] += h[r]
				}
			}
		})
	}
	for f := range nf {
		work <- f
	}
	close(work)
	wg.Wait()
	return out
}

// grow builds one tree on the gradients g and hessians h. A split's
// smaller side is summed from its rows, the larger one is the parent less
// the smaller.
func grow(binned [][]uint8, edges [][]float32, g, h []float64, rows []int32, p Params) Tree {
	var t Tree
	add := func() int {
		t.Feature = append(t.Feature, -1)
		t.Threshold = append(t.Threshold, 0)
		t.Left = append(t.Left, 0)
		t.Right = append(t.Right, 0)
		t.Value = append(t.Value, 0)
		return len(t.Feature) - 1
	}
	var sg, sh float64
	for _, r := range rows {
		sg += g[r]
		sh += h[r]
	}
	level := []node{{index: add(), lo: 0, hi: len(rows), g: sg, h: sh}}
	for depth := 0; depth <= p.Depth && len(level) > 0; depth++ {
		var next []node
		for _, nd := range level {
			leaf := func() {
				t.Value[nd.index] = float32(-nd.g / (nd.h + p.Lambda) * p.Rate)
			}
			if depth == p.Depth || nd.h < 2*p.MinHessian {
				leaf()
				continue
			}
			if nd.hist == nil {
				nd.hist = buildHist(binned, g, h, rows[nd.lo:nd.hi], p.Workers)
			}
			f, bin, gl, hl, ok := bestSplit(nd.hist, len(binned), nd.g, nd.h, p)
			if !ok {
				leaf()
				continue
			}
			// Partition the rows: those in bins up to bin go left.
			col := binned[f]
			part := rows[nd.lo:nd.hi]
			i, j := 0, len(part)-1
			for i <= j {
				if col[part[i]] <= bin {
					i++
				} else {
					part[i], part[j] = part[j], part[i]
					j--
				}
			}
			l, r := add(), add()
			t.Feature[nd.index] = f
			t.Threshold[nd.index] = edges[f][bin]
			t.Left[nd.index], t.Right[nd.index] = l, r
			left := node{index: l, lo: nd.lo, hi: nd.lo + i, g: gl, h: hl}
			right := node{index: r, lo: nd.lo + i, hi: nd.hi, g: nd.g - gl, h: nd.h - hl}
			if depth+1 < p.Depth {
				small, large := &left, &right
				if right.hi-right.lo < left.hi-left.lo {
					small, large = &right, &left
				}
				small.hist = buildHist(binned, g, h, rows[small.lo:small.hi], p.Workers)
				large.hist = make(hist, len(nd.hist))
				for k := range nd.hist {
					large.hist[k] = nd.hist[k] - small.hist[k]
				}
			}
			next = append(next, left, right)
		}
		level = next
	}
	return t
}

// bestSplit finds the split with the largest gain in a node's histograms,
// its feature and last bin on the left, and the left side's sums.
func bestSplit(hs hist, nf int, sg, sh float64, p Params) (int, uint8, float64, float64, bool) {
	parent := sg * sg / (sh + p.Lambda)
	bestGain, bestF, bestBin, bestGL, bestHL := 1e-9, -1, uint8(0), 0.0, 0.0
	for f := range nf {
		hf := hs[f*512 : (f+1)*512]
		var gl, hl float64
		for b := range 255 {
			gl += hf[2*b]
			hl += hf[2*b+1]
			if hl < p.MinHessian {
				continue
			}
			hr := sh - hl
			if hr < p.MinHessian {
				break
			}
			gr := sg - gl
			gain := gl*gl/(hl+p.Lambda) + gr*gr/(hr+p.Lambda) - parent
			if gain > bestGain+1e-12 {
				bestGain, bestF, bestBin, bestGL, bestHL = gain, f, uint8(b), gl, hl
			}
		}
	}
	if bestF < 0 {
		return 0, 0, 0, 0, false
	}
	return bestF, bestBin, bestGL, bestHL, true
}
