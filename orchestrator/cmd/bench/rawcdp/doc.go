// Package rawcdp is the benchmark's baseline: the least DevTools work that
// gives the same result as a glimpse render (a fresh browser context,
// navigate, wait for load, read the DOM or print the PDF), over one
// connection, with nothing of glimpse in between. It also counts targets and
// browser contexts for the leak check. Load generation is left to the caller.
package rawcdp
