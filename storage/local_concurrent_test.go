package storage

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestLocalFirstWritesIntoNewFoldersRunSideBySide holds the local store to
// concurrent first writes: many renders finishing at once into a fresh
// directory all create the same folders (files/, files/shot/) at the same
// moment. Each of them must be stored, none may fail because another
// created a folder first, and nothing temporary may be left.
func TestLocalFirstWritesIntoNewFoldersRunSideBySide(t *testing.T) {
	const writers = 24
	tests := []struct {
		name string
		key  func(round, i int) string
	}{
		{"every writer creates the same two new folders", func(r, i int) string { return fmt.Sprintf("files/shot/%d-%d.png", r, i) }},
		{"writers create a deep chain of new folders, sharing its first links", func(r, i int) string {
			return fmt.Sprintf("files/r%d/%d/%d/doc.pdf", r, i%3, i)
		}},
		{"writers spread over two top folders at once", func(r, i int) string {
			if i%2 == 0 {
				return fmt.Sprintf("cache/%d/%d", r, i)
			}
			return fmt.Sprintf("files/%d/%d.pdf", r, i)
		}},
		{"every writer replaces the same new key", func(r, _ int) string { return fmt.Sprintf("files/same/%d/doc.pdf", r) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A fresh store each round: only the first writes create folders.
			for round := range 4 {
				l, err := NewLocal(LocalConfig{Dir: filepath.Join(t.TempDir(), "data"), PublicBaseURL: "http://localhost:3000", SweepEvery: -1})
				if err != nil {
					t.Fatal(err)
				}
				var (
					start = make(chan struct{})
					wg    sync.WaitGroup
					mu    sync.Mutex
					want  = map[string][][]byte{}
				)
				for i := range writers {
					key := tt.key(round, i)
					body := []byte(fmt.Sprintf("object %d of round %d", i, round))
					mu.Lock()
					want[key] = append(want[key], body)
					mu.Unlock()
					wg.Go(func() {
						<-start
						if _, err := l.Put(context.Background(), key, bytes.NewReader(body), int64(len(body)), "application/octet-stream"); err != nil {
							t.Errorf("round %d: writing %q beside %d other first writes: %v", round, key, writers-1, err)
						}
					})
				}
				close(start)
				wg.Wait()
				for key, bodies := range want {
					got := mustRead(t, l, key)
					found := false
					for _, b := range bodies {
						found = found || bytes.Equal(got, b)
					}
					if !found {
						t.Errorf("round %d: %q holds %q, which no writer wrote", round, key, got)
					}
				}
				if err := fs.WalkDir(l.root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
					if err == nil && strings.Contains(name, tempSuffix) {
						t.Errorf("round %d: %s is left behind", round, name)
					}
					return err
				}); err != nil {
					t.Fatal(err)
				}
				l.Close()
			}
		})
	}
}
