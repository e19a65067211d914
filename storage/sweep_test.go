package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/glimpse/glimpse/metrics"
)

// aged is a file of a test directory: stored through Put unless raw, then
// given a modification time age ago.
type aged struct {
	name string
	size int
	age  time.Duration
	raw  bool // written as is, as an interrupted write or a stranger leaves it
}

// plant stores files in dir through a store that does not sweep, and returns
// the size each object takes on disk, metadata included.
func plant(t *testing.T, dir string, files []aged) map[string]int64 {
	t.Helper()
	l, err := NewLocal(LocalConfig{Dir: dir, PublicBaseURL: "http://localhost/files/", SweepEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	sizes := map[string]int64{}
	now := time.Now()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if f.raw {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, make([]byte, f.size), 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			mustPut(t, l, f.name, pdfLike(f.size), "")
		}
		when := now.Add(-f.age)
		for _, name := range []string{p, p + metaSuffix} {
			if err := os.Chtimes(name, when, when); err != nil && !(errors.Is(err, fs.ErrNotExist) && name != p) {
				t.Fatal(err)
			}
		}
		sizes[f.name] = diskSize(t, p) + diskSize(t, p+metaSuffix)
	}
	return sizes
}

func diskSize(t *testing.T, p string) int64 {
	t.Helper()
	info, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

// filesIn lists every regular file under dir, slash-separated and relative.
func filesIn(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	for _, f := range filesIn(t, dir) {
		n += diskSize(t, filepath.Join(dir, filepath.FromSlash(f)))
	}
	return n
}

func TestSweep(t *testing.T) {
	const day = 24 * time.Hour
	cases := []struct {
		name  string
		cfg   LocalConfig
		files []aged
		// budgetFor, when set, makes MaxBytes exactly the disk size of
		// these objects.
		budgetFor []string
		gone      []string
		want      SweepResult // only the counts of objects and OverBudget are compared
	}{
		{
			name: "objects older than MaxAge are deleted under cache/ and files/, and nowhere else",
			cfg:  LocalConfig{MaxAge: 2 * day},
			files: []aged{
				{name: "cache/old.json", size: 300, age: 3 * day},
				{name: "files/pdf/old.pdf", size: 2000, age: 3 * day},
				{name: "files/pdf/young.pdf", size: 2000, age: day},
				{name: "elsewhere/old.bin", size: 100, age: 3 * day},
			},
			gone: []string{"cache/old.json", "files/pdf/old.pdf"},
			want: SweepResult{Objects: 2, Age: Swept{Objects: 2}},
		},
		{
			name: "the default MaxAge keeps what a cached answer may still name",
			cfg:  LocalConfig{},
			files: []aged{
				{name: "files/a.pdf", size: 100, age: 62 * day},
				{name: "files/b.pdf", size: 100, age: 64 * day},
			},
			gone: []string{"files/b.pdf"},
			want: SweepResult{Objects: 1, Age: Swept{Objects: 1}},
		},
		{
			name: "a negative MaxAge keeps objects whatever their age",
			cfg:  LocalConfig{MaxAge: -1},
			files: []aged{
				{name: "files/ancient.pdf", size: 100, age: 400 * day},
			},
			want: SweepResult{Objects: 1},
		},
		{
			name: "over its budget, the directory loses its oldest objects first until it fits",
			cfg:  LocalConfig{MinAge: time.Minute},
			files: []aged{
				{name: "files/1.pdf", size: 1000, age: 5 * time.Hour},
				{name: "cache/2.json", size: 1000, age: 4 * time.Hour},
				{name: "files/3.pdf", size: 1000, age: 3 * time.Hour},
				{name: "files/4.pdf", size: 1000, age: 2 * time.Hour},
				{name: "cache/5.json", size: 1000, age: time.Hour},
			},
			budgetFor: []string{"files/3.pdf", "files/4.pdf", "cache/5.json"},
			gone:      []string{"files/1.pdf", "cache/2.json"},
			want:      SweepResult{Objects: 3, Budget: Swept{Objects: 2}},
		},
		{
			name: "objects younger than the grace period stay even over the budget, and the result says so",
			cfg:  LocalConfig{MinAge: time.Hour},
			files: []aged{
				{name: "files/old.pdf", size: 1000, age: 2 * time.Hour},
				{name: "files/fresh-1.pdf", size: 1000, age: 10 * time.Minute},
				{name: "files/fresh-2.pdf", size: 1000, age: 5 * time.Minute},
			},
			budgetFor: []string{"files/fresh-1.pdf"},
			gone:      []string{"files/old.pdf"},
			want:      SweepResult{Objects: 2, Budget: Swept{Objects: 1}, OverBudget: true},
		},
		{
			name: "objects younger than the grace period stay even past MaxAge",
			cfg:  LocalConfig{MaxAge: time.Minute, MinAge: time.Hour},
			files: []aged{
				{name: "files/a.pdf", size: 100, age: 30 * time.Minute},
			},
			want: SweepResult{Objects: 1},
		},
		{
			name: "files outside cache/ and files/ count towards the budget but are never deleted",
			cfg:  LocalConfig{MinAge: time.Minute},
			files: []aged{
				{name: "elsewhere/big.bin", size: 5000, age: 10 * day},
				{name: "files/a.pdf", size: 1000, age: time.Hour},
			},
			budgetFor: []string{"files/a.pdf"},
			gone:      []string{"files/a.pdf"},
			want:      SweepResult{Objects: 1, Budget: Swept{Objects: 1}, OverBudget: true},
		},
		{
			name: "what interrupted writes left is removed once it is a quarter of an hour old",
			cfg:  LocalConfig{},
			files: []aged{
				{name: "files/kept.pdf", size: 100, age: day},
				{name: "files/a.pdf" + tempSuffix + "0123456789abcdef", size: 700, age: 20 * time.Minute, raw: true},
				{name: "files/b.pdf" + metaSuffix + tempSuffix + "0123456789abcdef", size: 40, age: 20 * time.Minute, raw: true},
				{name: "files/running.pdf" + tempSuffix + "fedcba9876543210", size: 700, age: time.Minute, raw: true},
				{name: "files/orphan.pdf" + metaSuffix, size: 40, age: 20 * time.Minute, raw: true},
				{name: "ping" + tempSuffix + "00000000aaaaaaaa", size: 0, age: time.Hour, raw: true},
			},
			gone: []string{
				"files/a.pdf" + tempSuffix + "0123456789abcdef",
				"files/b.pdf" + metaSuffix + tempSuffix + "0123456789abcdef",
				"files/orphan.pdf" + metaSuffix,
				"ping" + tempSuffix + "00000000aaaaaaaa",
			},
			want: SweepResult{Objects: 1, Partial: Swept{Objects: 4}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			sizes := plant(t, dir, tc.files)
			cfg := tc.cfg
			cfg.Dir, cfg.PublicBaseURL, cfg.SweepEvery = dir, "http://localhost/files/", -1
			for _, name := range tc.budgetFor {
				cfg.MaxBytes += sizes[name]
			}
			before := filesIn(t, dir)
			l, err := NewLocal(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()

			res, err := l.Sweep(context.Background())
			if err != nil {
				t.Fatalf("Sweep: %v", err)
			}

			var want []string
			for _, f := range before {
				if !slices.Contains(tc.gone, strings.TrimSuffix(f, metaSuffix)) && !slices.Contains(tc.gone, f) {
					want = append(want, f)
				}
			}
			if got := filesIn(t, dir); !slices.Equal(got, want) {
				t.Errorf("after the sweep the directory holds\n  %v\nwant\n  %v", got, want)
			}
			if res.Objects != tc.want.Objects || res.Age.Objects != tc.want.Age.Objects || res.Budget.Objects != tc.want.Budget.Objects ||
				res.Partial.Objects != tc.want.Partial.Objects || res.OverBudget != tc.want.OverBudget {
				t.Errorf("Sweep = %+v; want objects %d, expired %d, evicted %d, partial %d, over budget %v", res,
					tc.want.Objects, tc.want.Age.Objects, tc.want.Budget.Objects, tc.want.Partial.Objects, tc.want.OverBudget)
			}
			if got := dirBytes(t, dir); res.Bytes != got {
				t.Errorf("Sweep reports %d bytes left; the directory holds %d", res.Bytes, got)
			}
			var freed int64
			for _, name := range tc.gone {
				freed += sizes[name]
			}
			if got := res.Age.Bytes + res.Budget.Bytes + res.Partial.Bytes; got != freed {
				t.Errorf("Sweep reports %d bytes freed; the deleted files took %d", got, freed)
			}
			if cfg.MaxBytes > 0 && !res.OverBudget && res.Bytes > cfg.MaxBytes {
				t.Errorf("the directory holds %d bytes, over its budget of %d, and the sweep does not say so", res.Bytes, cfg.MaxBytes)
			}
		})
	}
}

func TestSweepKeepsAnObjectReplacedAfterTheWalk(t *testing.T) {
	dir := t.TempDir()
	plant(t, dir, []aged{{name: "cache/entry.json", size: 200, age: 100 * 24 * time.Hour}})
	l, err := NewLocal(LocalConfig{Dir: dir, PublicBaseURL: "http://localhost/files/", SweepEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	objects, _, _, err := l.inventory(context.Background())
	if err != nil || len(objects) != 1 {
		t.Fatalf("inventory = %v, %v; want the one entry", objects, err)
	}
	fresh := mustPut(t, l, "cache/entry.json", []byte(`{"fresh":true}`), "application/json")

	removed, err := l.removeObject(objects[0])
	if removed || err != nil {
		t.Errorf("removeObject of the entry the walk saw = %v, %v; want it to leave the replacement alone", removed, err)
	}
	if obj, err := l.Stat(context.Background(), "cache/entry.json"); err != nil || obj.ETag != fresh.ETag {
		t.Errorf("after the sweep the entry is %+v, %v; want the fresh one", obj, err)
	}
}

func TestSweepCountsWhatItDeletesForMetrics(t *testing.T) {
	dir := t.TempDir()
	sizes := plant(t, dir, []aged{
		{name: "files/old.pdf", size: 1000, age: 100 * 24 * time.Hour},
		{name: "files/mid.pdf", size: 1000, age: 2 * time.Hour},
		{name: "files/new.pdf", size: 1000, age: time.Hour},
		{name: "files/x.pdf" + tempSuffix + "0011223344556677", size: 10, age: time.Hour, raw: true},
	})
	l, err := NewLocal(LocalConfig{Dir: dir, PublicBaseURL: "http://localhost/files/", SweepEvery: -1,
		MinAge: time.Minute, MaxBytes: sizes["files/new.pdf"]})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	t.Run("before any sweep nothing is counted and the budget is shown", func(t *testing.T) {
		s := l.Snapshot()
		if s.Bytes != 0 || s.MaxBytes != sizes["files/new.pdf"] || s.SweptObjects[metrics.SweptAge] != 0 {
			t.Errorf("Snapshot = %+v", s)
		}
	})
	for range 2 { // the second sweep finds nothing more to delete
		if _, err := l.Sweep(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("after sweeping, each reason counts its objects and bytes, and the directory its size", func(t *testing.T) {
		s := l.Snapshot()
		wantObjects := map[string]int64{metrics.SweptAge: 1, metrics.SweptBudget: 1, metrics.SweptPartial: 1}
		wantBytes := map[string]int64{metrics.SweptAge: sizes["files/old.pdf"], metrics.SweptBudget: sizes["files/mid.pdf"], metrics.SweptPartial: 10}
		for _, reason := range metrics.SweepReasons {
			if s.SweptObjects[reason] != wantObjects[reason] || s.SweptBytes[reason] != wantBytes[reason] {
				t.Errorf("reason %s: %d objects, %d bytes; want %d, %d", reason,
					s.SweptObjects[reason], s.SweptBytes[reason], wantObjects[reason], wantBytes[reason])
			}
		}
		if s.Objects != 1 || s.Bytes != dirBytes(t, dir) {
			t.Errorf("Snapshot shows %d objects in %d bytes; the directory holds 1 in %d", s.Objects, s.Bytes, dirBytes(t, dir))
		}
	})
}

func TestBackgroundSweeperHoldsTheStoreUnderItsBudget(t *testing.T) {
	const (
		objectSize = 4 << 10
		budget     = 64 << 10
		writes     = 60
	)
	dir := t.TempDir()
	l, err := NewLocal(LocalConfig{Dir: dir, PublicBaseURL: "http://localhost/files/",
		MaxBytes: budget, MinAge: time.Nanosecond, SweepEvery: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var keys []string
	for i := range writes {
		key := fmt.Sprintf("files/shot/%03d.png", i)
		mustPut(t, l, key, pdfLike(objectSize), "image/png")
		keys = append(keys, key)
		// Writes arrive over time, as renders finish; each Put's time is
		// its age, so the order to evict in is clear.
		time.Sleep(2 * time.Millisecond)
	}
	deadline := time.Now().Add(10 * time.Second)
	for dirBytes(t, dir) > budget {
		if time.Now().After(deadline) {
			t.Fatalf("the directory still holds %d bytes 10s after the last write; the budget is %d", dirBytes(t, dir), budget)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Run("the newest object is kept", func(t *testing.T) {
		if _, err := l.Stat(context.Background(), keys[len(keys)-1]); err != nil {
			t.Errorf("the last object written is gone: %v", err)
		}
	})
	t.Run("the oldest object went first", func(t *testing.T) {
		if _, err := l.Stat(context.Background(), keys[0]); !errors.Is(err, ErrNotFound) {
			t.Errorf("the first object written is still there (%v) while the store was over budget", err)
		}
	})
	t.Run("the metrics count the evictions", func(t *testing.T) {
		if s := l.Snapshot(); s.SweptObjects[metrics.SweptBudget] == 0 {
			t.Errorf("Snapshot = %+v; want evictions for the budget", s)
		}
	})
}

func TestCloseStopsTheBackgroundSweeper(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	plant(t, dir, []aged{{name: "files/a.pdf", size: 10, age: time.Hour}})
	l, err := NewLocal(LocalConfig{Dir: dir, PublicBaseURL: "http://localhost/files/", SweepEvery: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // a few sweeps
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("a second Close: %v; want nothing to happen", err)
	}
}

func TestSweepStopsWithItsContext(t *testing.T) {
	dir := t.TempDir()
	plant(t, dir, []aged{{name: "files/a.pdf", size: 10, age: 100 * 24 * time.Hour}})
	l, err := NewLocal(LocalConfig{Dir: dir, PublicBaseURL: "http://localhost/files/", SweepEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Sweep(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Sweep with an ended context = %v; want context.Canceled", err)
	}
	if _, err := l.Stat(context.Background(), "files/a.pdf"); err != nil {
		t.Errorf("an abandoned sweep deleted an object: %v", err)
	}
}
