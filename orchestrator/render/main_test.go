package render

import (
	"flag"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs the package's tests, most of which wait on a scripted
// browser's timers rather than on the CPU, eight at a time unless
// -test.parallel says otherwise, and fails the package when a render
// leaves a goroutine behind.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", "8")
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			os.Stderr.WriteString("goroutines left behind by the tests: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}
