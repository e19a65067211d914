// Package evalhalf splits an evaluation set's cases into two halves by the
// number their folder name starts with, so that a rule can be fitted on one
// half and checked on the other, whose pages nobody looked at.
//
// GLIMPSE_EVAL_HALF=even keeps the cases numbered even, odd the others;
// unset (or any other value) keeps all of them. Names without a leading
// number count as even.
package evalhalf

import (
	"os"
	"strconv"
	"strings"
)

// Env names the half to keep.
const Env = "GLIMPSE_EVAL_HALF"

// Keep reports whether the case named name belongs to the half the
// environment asks for.
func Keep(name string) bool {
	return KeepIn(os.Getenv(Env), name)
}

// KeepIn is Keep for the half named half.
func KeepIn(half, name string) bool {
	half = strings.ToLower(strings.TrimSpace(half))
	if half != "even" && half != "odd" {
		return true
	}
	end := 0
	for end < len(name) && name[end] >= '0' && name[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(name[:end])
	return (n%2 == 0) == (half == "even")
}
