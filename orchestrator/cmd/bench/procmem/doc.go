// Package procmem reads the memory of a process and of the tree of
// processes below it from /proc: PSS from smaps_rollup (shared pages split
// fairly between the processes that map them, so a tree's sum is honest) and
// RSS from status. Linux only; which processes to watch is the caller's.
package procmem
