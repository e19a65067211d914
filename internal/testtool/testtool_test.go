package testtool

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMissingToolHelper is run by TestMissingSkipsUnderShortAndFailsOtherwise
// in a child process; on its own it does nothing.
func TestMissingToolHelper(t *testing.T) {
	if os.Getenv("TESTTOOL_HELPER") != "1" {
		t.Skip("run by TestMissingSkipsUnderShortAndFailsOtherwise")
	}
	Missing(t, errors.New("frobnicate is not installed: apt-get install frobnicate"))
	t.Log("still running after Missing")
}

func TestMissingSkipsUnderShortAndFailsOtherwise(t *testing.T) {
	for _, tc := range []struct {
		name     string
		short    bool
		wantFail bool
		want     []string
	}{
		{name: "under -short the test is skipped and says how to install the tool", short: true,
			want: []string{"--- SKIP: TestMissingToolHelper", "apt-get install frobnicate", "make deps"}},
		{name: "without -short the test fails and says how to install the tool", wantFail: true,
			want: []string{"--- FAIL: TestMissingToolHelper", "apt-get install frobnicate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"-test.run=^TestMissingToolHelper$", "-test.v", "-test.count=1"}
			if tc.short {
				args = append(args, "-test.short")
			}
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), "TESTTOOL_HELPER=1")
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != tc.wantFail {
				t.Fatalf("the test failed: %t, want %t (%v):\n%s", failed, tc.wantFail, err, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("the output does not say %q:\n%s", w, out)
				}
			}
			if strings.Contains(string(out), "still running after Missing") {
				t.Errorf("the test went on after Missing:\n%s", out)
			}
		})
	}
}
