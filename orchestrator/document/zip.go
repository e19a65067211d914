package document

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"path"
	"strings"
)

// archive is a zip file read within Limits: the entries it lists, the
// bytes it expands to, and how far one entry may expand from what it
// takes in the file.
type archive struct {
	zr       *zip.Reader
	files    map[string]*zip.File // by clean name, case kept
	lim      Limits
	expanded int64 // bytes read out of entries so far
}

func openArchive(body []byte, lim Limits) (*archive, error) {
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return nil, malformed("it is not a readable zip archive: %v", err)
	}
	if len(zr.File) > lim.MaxEntries {
		return nil, bound("its archive lists %d entries, more than the %d glimpse reads", len(zr.File), lim.MaxEntries)
	}
	a := &archive{zr: zr, files: make(map[string]*zip.File, len(zr.File)), lim: lim}
	for _, f := range zr.File {
		a.files[path.Clean(strings.TrimPrefix(f.Name, "/"))] = f
	}
	return a, nil
}

// has reports whether the archive holds name.
func (a *archive) has(name string) bool {
	_, ok := a.files[path.Clean(name)]
	return ok
}

// read expands one entry, within the per-entry and total bounds and the
// ratio bound. The sizes an entry's header declares are the archive's to
// choose, so the bounds are checked on the bytes actually expanded.
func (a *archive) read(name string) ([]byte, error) {
	f, ok := a.files[path.Clean(name)]
	if !ok {
		return nil, malformed("its archive has no %s", name)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, malformed("its entry %s cannot be opened: %v", name, err)
	}
	defer rc.Close()
	limit := min(a.lim.MaxEntryBytes, a.lim.MaxExpandedBytes-a.expanded)
	if c := int64(f.CompressedSize64); c > 0 && a.lim.MaxRatio > 0 {
		// A small entry may compress well; past the floor, an entry
		// that expands more than MaxRatio times is a bomb, not text.
		limit = min(limit, max(c*int64(a.lim.MaxRatio), ratioFloor))
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(rc, limit+1))
	a.expanded += n
	if n > limit {
		return nil, bound("its entry %s expands past %d bytes (from %d in the archive), more than glimpse reads", name, limit, f.CompressedSize64)
	}
	if err != nil {
		return nil, malformed("its entry %s is damaged: %v", name, err)
	}
	return buf.Bytes(), nil
}

// ratioFloor is what any entry may expand to whatever its ratio: short
// repetitive XML compresses far better than prose.
const ratioFloor = 1 << 20

// resolve is a relationship target ref made from the part base names, in
// the archive's own namespace (no leading slash).
func resolve(base, ref string) string {
	if strings.HasPrefix(ref, "/") {
		return path.Clean(strings.TrimPrefix(ref, "/"))
	}
	return path.Clean(path.Join(path.Dir(base), ref))
}

func (a *archive) String() string { return fmt.Sprintf("archive of %d entries", len(a.zr.File)) }
