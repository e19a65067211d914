package storage

import "golang.org/x/sys/unix"

// volumeSpace returns the size of the filesystem that holds dir and the
// bytes an unprivileged writer may still put on it, as df shows them; 0, 0
// when they cannot be read. The sweeper keeps the directory under its own
// budget, but the volume may be smaller than the budget or shared with
// other writers, and a full volume fails every Put.
func volumeSpace(dir string) (size, free int64) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, 0
	}
	bsize := int64(st.Bsize) // int64 on Linux, uint32 on the BSDs
	return int64(st.Blocks) * bsize, int64(st.Bavail) * bsize
}
