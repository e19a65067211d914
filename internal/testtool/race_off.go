//go:build !race

package testtool

const raceEnabled = false
