package storage

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/glimpse/glimpse/metrics"
)

// Defaults of the local store's sweeper.
const (
	// DefaultMaxAge is the local twin of the bucket's expiry: it outlives
	// every cached answer and so every file an answer names.
	DefaultMaxAge = DefaultExpireAfterDays * 24 * time.Hour
	// DefaultMinAge covers the time between storing a file and storing the
	// answer that names it, with a wide margin.
	DefaultMinAge = time.Hour
	// DefaultSweepEvery keeps the directory within a few minutes' worth of
	// writes of its budget, at the cost of one directory walk.
	DefaultSweepEvery = 10 * time.Minute
)

const (
	// partialMaxAge is when a temporary file, or a metadata file without
	// its object, counts as left behind by a write that was interrupted. A
	// running Put writes its temporary file as the data arrives and renames
	// it within moments of the last byte, so a quarter of an hour without
	// a change means nobody will finish it.
	partialMaxAge = 15 * time.Minute
	// maxKickInterval bounds how often Puts that push the directory over its
	// budget may start a sweep ahead of schedule: when the budget cannot be
	// met because everything is younger than MinAge, each Put would
	// otherwise walk the whole directory.
	maxKickInterval = time.Minute
	// cachePrefix holds the shared cache entries; with PublicPrefix it is
	// the part of the key space the sweeper may delete from.
	cachePrefix = "cache/"
)

// SweepResult describes one sweep.
type SweepResult struct {
	// Bytes is the size of every file left in the directory, metadata and
	// temporary files included, and Objects the number of stored objects
	// left.
	Bytes   int64
	Objects int
	// Age, Budget and Partial are what was deleted: objects older than
	// MaxAge, the oldest objects while the directory was over MaxBytes, and
	// files left behind by interrupted writes.
	Age, Budget, Partial Swept
	// OverBudget is set when the directory is still above MaxBytes because
	// every object left is younger than MinAge (or outside cache/ and
	// files/, which the sweeper never deletes).
	OverBudget bool
}

// Swept counts deleted objects and the bytes they freed, their metadata
// included.
type Swept struct {
	Objects int
	Bytes   int64
}

func (s *Swept) add(bytes int64) {
	s.Objects++
	s.Bytes += bytes
}

// sweepPolicy is LocalConfig's sweeping settings with the defaults applied.
type sweepPolicy struct {
	maxAge   time.Duration // <= 0: no age limit
	maxBytes int64         // 0: no budget
	minAge   time.Duration
	every    time.Duration // <= 0: no background sweeping
}

func newSweepPolicy(cfg LocalConfig) (sweepPolicy, error) {
	p := sweepPolicy{maxAge: cfg.MaxAge, maxBytes: cfg.MaxBytes, minAge: cfg.MinAge, every: cfg.SweepEvery}
	switch {
	case p.maxBytes < 0:
		return p, fmt.Errorf("storage: the byte budget of the storage directory is %d; give a number of bytes, or 0 for no budget", p.maxBytes)
	case p.minAge < 0:
		return p, fmt.Errorf("storage: the grace period before a stored object may be swept is %s; it must not be negative", p.minAge)
	}
	if p.maxAge == 0 {
		p.maxAge = DefaultMaxAge
	}
	if p.minAge == 0 {
		p.minAge = DefaultMinAge
	}
	if p.every == 0 {
		p.every = DefaultSweepEvery
	}
	return p, nil
}

// sweeper is the sweeping state of a Local.
type sweeper struct {
	policy sweepPolicy

	running sync.Mutex // one sweep at a time
	kick    chan struct{}
	cancel  context.CancelFunc
	done    chan struct{} // closed when the background loop ended; nil without one

	// pending is the bytes Put since the last sweep measured the directory,
	// so that a burst of writes can start a sweep before the next tick.
	pending atomic.Int64

	mu           sync.Mutex
	bytes        int64
	objects      int64
	sweptObjects map[string]int64
	sweptBytes   map[string]int64
}

func (l *Local) startSweeper(p sweepPolicy) {
	l.policy = p
	l.kick = make(chan struct{}, 1)
	l.sweptObjects = map[string]int64{}
	l.sweptBytes = map[string]int64{}
	if p.every <= 0 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	l.done = make(chan struct{})
	go l.sweepLoop(ctx)
}

func (l *Local) stopSweeper() {
	if l.cancel == nil {
		return
	}
	l.cancel()
	<-l.done
}

// sweepLoop sweeps at once (to clear what an earlier run left and to measure
// the directory), then every policy.every, and earlier when Puts push the
// directory over its budget.
func (l *Local) sweepLoop(ctx context.Context) {
	defer close(l.done)
	kickInterval := min(l.policy.every, maxKickInterval)
	timer := time.NewTimer(0)
	defer timer.Stop()
	var last time.Time
	next := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-l.kick:
			if soonest := last.Add(kickInterval); time.Now().Before(soonest) {
				if soonest.Before(next) {
					next = soonest
					timer.Reset(time.Until(soonest))
				}
				continue
			}
		}
		res, err := l.Sweep(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			slog.Warn("storage: the sweep of the local storage directory did not finish; it is tried again at the next one", "dir", l.dir, "err", err)
		}
		if n := res.Age.Objects + res.Budget.Objects + res.Partial.Objects; n > 0 {
			slog.Info("storage: swept the local storage directory", "dir", l.dir,
				"expired", res.Age.Objects, "evicted", res.Budget.Objects, "partial", res.Partial.Objects,
				"freedBytes", res.Age.Bytes+res.Budget.Bytes+res.Partial.Bytes, "bytes", res.Bytes, "objects", res.Objects)
		}
		last = time.Now()
		next = last.Add(l.policy.every)
		timer.Reset(l.policy.every)
	}
}

// written notes n bytes just stored, and asks for an early sweep when they
// take the directory over its budget.
func (l *Local) written(n int64) {
	if l.policy.maxBytes <= 0 {
		return
	}
	pending := l.pending.Add(n)
	l.mu.Lock()
	over := l.bytes+pending > l.policy.maxBytes
	l.mu.Unlock()
	if over {
		select {
		case l.kick <- struct{}{}:
		default:
		}
	}
}

// Snapshot is the sweeper's state for the Prometheus collectors; register it
// with metrics.RegisterLocalStorage.
func (l *Local) Snapshot() metrics.LocalStorageSnapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := metrics.LocalStorageSnapshot{
		Bytes: l.bytes, Objects: l.objects, MaxBytes: l.policy.maxBytes,
		SweptObjects: make(map[string]int64, len(l.sweptObjects)),
		SweptBytes:   make(map[string]int64, len(l.sweptBytes)),
	}
	for k, v := range l.sweptObjects {
		s.SweptObjects[k] = v
	}
	for k, v := range l.sweptBytes {
		s.SweptBytes[k] = v
	}
	s.VolumeBytes, s.VolumeFreeBytes = volumeSpace(l.dir)
	return s
}

// storedObject is one object found by a sweep, with its metadata file.
type storedObject struct {
	name     string // slash-separated path in the directory, the key
	size     int64  // data and metadata
	dataSize int64
	modified time.Time // of the data file: when it was written
	hasMeta  bool
}

// leftover is a file that no Store method will ever finish or read.
type leftover struct {
	name     string
	size     int64
	modified time.Time
}

// Sweep deletes, under cache/ and files/, the objects older than MaxAge
// and then, oldest first, as many as it takes to bring the directory under
// MaxBytes; anywhere in the directory it deletes the temporary files of
// interrupted writes. No object younger than MinAge is deleted: when that
// keeps the directory over its budget, the result says so and a warning is
// logged. Files outside cache/ and files/ count towards the budget but are
// never deleted. It returns what it did, also when it stopped early with an
// error; the background sweeper calls it, and operators or tests may too.
//
// Each file is checked again just before it is removed, so an object that
// a Put replaced after the walk is kept; what is left is the instant between
// that check and the removal. Only cache entries are ever replaced in place
// (stored files get a new name per rendering), and losing one costs a
// render.
func (l *Local) Sweep(ctx context.Context) (SweepResult, error) {
	l.running.Lock()
	defer l.running.Unlock()
	// Bytes stored from here on may or may not be seen by the walk; counting
	// them again later at worst starts the next sweep a little early.
	l.pending.Store(0)
	now := time.Now()
	var res SweepResult

	objects, leftovers, total, err := l.inventory(ctx)
	if err != nil {
		return res, err
	}
	var failures []error
	fail := func(err error) {
		if err != nil {
			failures = append(failures, err)
		}
	}

	for _, f := range leftovers {
		if now.Sub(f.modified) < partialMaxAge {
			continue
		}
		ok, err := l.removeLeftover(f)
		fail(err)
		if ok {
			res.Partial.add(f.size)
			total -= f.size
		}
	}

	kept := objects[:0]
	for _, o := range objects {
		age := now.Sub(o.modified)
		if l.policy.maxAge > 0 && age > l.policy.maxAge && age >= l.policy.minAge && sweepable(o.name) {
			ok, err := l.removeObject(o)
			fail(err)
			if ok {
				res.Age.add(o.size)
				total -= o.size
				continue
			}
		}
		kept = append(kept, o)
	}
	objects = kept

	if l.policy.maxBytes > 0 && total > l.policy.maxBytes {
		slices.SortFunc(objects, func(a, b storedObject) int {
			return cmp.Or(a.modified.Compare(b.modified), strings.Compare(a.name, b.name))
		})
		kept := objects[:0]
		for _, o := range objects {
			if total > l.policy.maxBytes && now.Sub(o.modified) >= l.policy.minAge && sweepable(o.name) && ctx.Err() == nil {
				ok, err := l.removeObject(o)
				fail(err)
				if ok {
					res.Budget.add(o.size)
					total -= o.size
					continue
				}
			}
			kept = append(kept, o)
		}
		objects = kept
		if total > l.policy.maxBytes && ctx.Err() == nil {
			res.OverBudget = true
			slog.Warn("storage: the local storage directory is still over its byte budget after a sweep, because every object left is younger than the grace period or is not one of glimpse's; give it a larger budget",
				"dir", l.dir, "bytes", total, "budget", l.policy.maxBytes, "grace", l.policy.minAge)
		}
	}

	res.Bytes, res.Objects = total, len(objects)
	l.record(res)
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("storage: the sweep of %s was abandoned: %w", l.dir, err)
	}
	if len(failures) > 0 {
		return res, fmt.Errorf("storage: the sweep of %s could not delete %d files; the first failure: %w", l.dir, len(failures), failures[0])
	}
	return res, nil
}

func (l *Local) record(res SweepResult) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bytes, l.objects = res.Bytes, int64(res.Objects)
	for reason, s := range map[string]Swept{metrics.SweptAge: res.Age, metrics.SweptBudget: res.Budget, metrics.SweptPartial: res.Partial} {
		l.sweptObjects[reason] += int64(s.Objects)
		l.sweptBytes[reason] += s.Bytes
	}
}

// sweepable reports whether a path lies in the key space glimpse itself
// writes, the only part the sweeper deletes objects from.
func sweepable(name string) bool {
	return strings.HasPrefix(name, cachePrefix) || strings.HasPrefix(name, PublicPrefix)
}

// inventory walks the directory and sorts its regular files into objects
// (with their metadata) and leftovers of interrupted writes, and adds up
// the size of every file. Symbolic links are neither followed nor counted.
func (l *Local) inventory(ctx context.Context) ([]storedObject, []leftover, int64, error) {
	var (
		objects   []storedObject
		leftovers []leftover
		total     int64
		metas     = map[string]leftover{} // object name → its metadata file
	)
	err := fs.WalkDir(l.root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			// A file removed while the walk reads its folder is not a
			// problem; anything else ends the sweep rather than deleting
			// on a partial view of the budget.
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		total += info.Size()
		f := leftover{name: name, size: info.Size(), modified: info.ModTime()}
		switch base := path.Base(name); {
		case strings.Contains(base, tempSuffix):
			leftovers = append(leftovers, f)
		case strings.HasSuffix(base, metaSuffix):
			metas[strings.TrimSuffix(name, metaSuffix)] = f
		case strings.Contains(base, "~"):
			// Not a name this store writes; counted, never touched.
		default:
			objects = append(objects, storedObject{name: name, size: f.size, dataSize: f.size, modified: f.modified})
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, 0, fmt.Errorf("storage: the sweep of %s was abandoned: %w", l.dir, err)
		}
		return nil, nil, 0, fmt.Errorf("storage: could not list the storage directory %s for a sweep: %w", l.dir, err)
	}
	for i := range objects {
		if m, ok := metas[objects[i].name]; ok {
			objects[i].size += m.size
			objects[i].hasMeta = true
			delete(metas, objects[i].name)
		}
	}
	// A metadata file without its object is what a Put leaves when it fails
	// between its two renames.
	for _, m := range metas {
		leftovers = append(leftovers, m)
	}
	return objects, leftovers, total, nil
}

// removeObject deletes an object and its metadata, unless the data file is
// no longer the one the walk saw.
func (l *Local) removeObject(o storedObject) (bool, error) {
	info, err := l.root.Lstat(o.name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil // deleted meanwhile
	case err != nil:
		return false, fmt.Errorf("could not check %s before deleting it: %w", o.name, err)
	case !info.Mode().IsRegular() || !info.ModTime().Equal(o.modified) || info.Size() != o.dataSize:
		return false, nil // replaced by a Put since the walk
	}
	if err := l.root.Remove(o.name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("could not delete %s: %w", o.name, err)
	}
	if o.hasMeta {
		// A Put that replaced the object just now has its new metadata in
		// place already; removing it costs that object only its recorded
		// content type, which the key's extension stands in for.
		if err := l.root.Remove(o.name + metaSuffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return true, fmt.Errorf("deleted %s but not its metadata: %w", o.name, err)
		}
	}
	return true, nil
}

// removeLeftover deletes a leftover file unless it was written to since the
// walk saw it.
func (l *Local) removeLeftover(f leftover) (bool, error) {
	info, err := l.root.Lstat(f.name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("could not check %s before deleting it: %w", f.name, err)
	case !info.ModTime().Equal(f.modified):
		return false, nil
	}
	if err := l.root.Remove(f.name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("could not delete %s: %w", f.name, err)
	}
	return true, nil
}
