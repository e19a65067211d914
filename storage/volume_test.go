package storage

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// dfSpace reads the size and available bytes of dir's filesystem with df,
// a reader independent of the one under test.
func dfSpace(t *testing.T, dir string) (size, avail int64) {
	t.Helper()
	out, err := exec.Command("df", "-B1", "--output=size,avail", dir).Output()
	if err != nil {
		t.Skipf("df cannot read %s here: %v", dir, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	fields := strings.Fields(lines[len(lines)-1])
	if len(fields) != 2 {
		t.Fatalf("df printed %q", out)
	}
	size, err1 := strconv.ParseInt(fields[0], 10, 64)
	avail, err2 := strconv.ParseInt(fields[1], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("df printed %q", out)
	}
	return size, avail
}

func TestSnapshotShowsTheVolumeOfTheStorageDirectory(t *testing.T) {
	dir := t.TempDir()
	l, err := NewLocal(LocalConfig{Dir: dir, PublicBaseURL: "http://localhost/files/", SweepEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	t.Run("the size and free bytes are the filesystem's, as df shows them", func(t *testing.T) {
		s := l.Snapshot()
		size, avail := dfSpace(t, dir)
		if s.VolumeBytes != size {
			t.Errorf("the volume is %d bytes, df says %d", s.VolumeBytes, size)
		}
		// Other writers on the machine move the free space between the
		// two reads; 64 MiB is far below any volume a test runs on.
		if d := s.VolumeFreeBytes - avail; d > 64<<20 || d < -64<<20 || s.VolumeFreeBytes <= 0 || s.VolumeFreeBytes > s.VolumeBytes {
			t.Errorf("%d bytes are free, df says %d of %d", s.VolumeFreeBytes, avail, s.VolumeBytes)
		}
	})
	t.Run("a directory that is gone shows no volume rather than a stale one", func(t *testing.T) {
		if size, free := volumeSpace(dir + "/no-such-folder"); size != 0 || free != 0 {
			t.Errorf("volumeSpace of a missing folder = %d, %d; want 0, 0", size, free)
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if s := l.Snapshot(); s.VolumeBytes != 0 || s.VolumeFreeBytes != 0 {
			t.Errorf("with its directory removed the store shows a volume of %d bytes, %d free", s.VolumeBytes, s.VolumeFreeBytes)
		}
	})
}
