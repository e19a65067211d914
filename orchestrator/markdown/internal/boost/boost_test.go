package boost

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

// samples draws n points of a problem no single split solves: positive
// when exactly one of the first two features is above a half, whatever
// the third, which is noise.
func samples(n int, seed uint64) (x [][]float32, y, w []float32) {
	r := rand.New(rand.NewPCG(seed, 1))
	for range n {
		a, b, c := r.Float32(), r.Float32(), r.Float32()
		label := float32(0)
		if (a > 0.5) != (b > 0.5) {
			label = 1
		}
		x = append(x, []float32{a, b, c})
		y = append(y, label)
		w = append(w, 1)
	}
	return x, y, w
}

func TestTrainLearnsAnInteractionAndPredictsUnseenPoints(t *testing.T) {
	x, y, w := samples(4000, 1)
	p := DefaultParams()
	p.Trees, p.Depth, p.FeatureNames = 40, 3, []string{"a", "b", "noise"}
	m, err := Train(x, y, w, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Check(); err != nil {
		t.Fatalf("a trained model fails its own check: %v", err)
	}
	tx, ty, _ := samples(1000, 2)
	right := 0
	for i := range tx {
		if (m.Predict(tx[i]) >= 0.5) == (ty[i] == 1) {
			right++
		}
	}
	if right < 950 {
		t.Errorf("the model is right on %d of 1000 unseen points, want at least 950", right)
	}
}

func TestTrainIsDeterministic(t *testing.T) {
	x, y, w := samples(2000, 3)
	p := DefaultParams()
	p.Trees, p.FeatureNames = 10, []string{"a", "b", "noise"}
	a, err := Train(x, y, w, p)
	if err != nil {
		t.Fatal(err)
	}
	p.Workers = 1
	b, err := Train(x, y, w, p)
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Error("the same samples trained twice (with 1 and with several workers) gave two models")
	}
}

func TestTrainRefusesSamplesThatDoNotMatch(t *testing.T) {
	x, y, w := samples(10, 4)
	for _, tc := range []struct {
		name    string
		x       [][]float32
		y, w    []float32
		columns []string
	}{
		{"no samples at all", nil, nil, nil, []string{"a", "b", "c"}},
		{"fewer labels than samples", x, y[:5], w, []string{"a", "b", "c"}},
		{"fewer weights than samples", x, y, w[:5], []string{"a", "b", "c"}},
		{"a name short for the columns", x, y, w, []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultParams()
			p.FeatureNames = tc.columns
			if _, err := Train(tc.x, tc.y, tc.w, p); err == nil {
				t.Error("Train accepted it")
			}
		})
	}
}

func TestCheckRefusesTreesThatWouldMisleadPredict(t *testing.T) {
	leaf := Tree{Feature: []int{-1}, Threshold: []float32{0}, Left: []int{0}, Right: []int{0}, Value: []float32{0.1}}
	for _, tc := range []struct {
		name string
		tree Tree
	}{
		{"a tree with no node", Tree{}},
		{"arrays of different lengths", Tree{Feature: []int{-1}, Threshold: []float32{0}, Left: []int{0}, Right: []int{0}}},
		{"a split on a feature the model does not have", Tree{Feature: []int{5, -1, -1}, Threshold: []float32{0, 0, 0},
			Left: []int{1, 0, 0}, Right: []int{2, 0, 0}, Value: []float32{0, 0, 0}}},
		{"a child before its parent, which would loop", Tree{Feature: []int{0, 0, -1}, Threshold: []float32{0, 0, 0},
			Left: []int{1, 0, 0}, Right: []int{2, 2, 0}, Value: []float32{0, 0, 0}}},
		{"a child past the end", Tree{Feature: []int{0}, Threshold: []float32{0}, Left: []int{1}, Right: []int{2}, Value: []float32{0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &Model{Features: []string{"a"}, Trees: []Tree{leaf, tc.tree}}
			if err := m.Check(); err == nil {
				t.Error("Check accepted it")
			}
		})
	}
	if err := (&Model{Features: []string{"a"}, Trees: []Tree{leaf}}).Check(); err != nil {
		t.Errorf("Check refused a sound one-leaf tree: %v", err)
	}
}

func TestQuantileEdgesKeepEqualValuesInOneBin(t *testing.T) {
	for _, tc := range []struct {
		values, want []float32
	}{
		{[]float32{3, 0, 2, 0, 1, 0, 1, 0}, []float32{0, 1, 2, 3}},
		{[]float32{5, 5, 5, 9, 5, 5, 5, 5}, []float32{5, 9}},
		{[]float32{7, 7, 7}, []float32{7}},
	} {
		if got := quantileEdges(tc.values, 4); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("quantileEdges(%v, 4) = %v, want %v", tc.values, got, tc.want)
		}
	}
}
