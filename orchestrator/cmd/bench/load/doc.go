// Package load drives closed-loop load: a fixed number of workers, each
// sending its next request as soon as the last one ends, with latencies kept
// for percentiles. It runs Go jobs (HTTP or raw DevTools) and wrk for the
// rates a Go client on the same two cores would distort. What a request is,
// and whether its answer is right, is the caller's.
package load
