package helm_test

import "testing"

// sidecar.maxPages reaches the sidecar as GLIMPSE_SIDECAR_MAX_PAGES; left
// empty, the sidecar derives its page limit from its own memory limit.
func TestTheSidecarsPageLimitIsPassedOnOnlyWhenSet(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // "" for no variable
	}{
		{"by default the sidecar derives it from its memory limit", nil, ""},
		{"a number is passed on", []string{"--set", "sidecar.maxPages=6"}, "6"},
		{"0 turns the limit off", []string{"--set", "sidecar.maxPages=0"}, "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := helmTemplate(t, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			objs, err := decodeAll(out)
			if err != nil {
				t.Fatal(err)
			}
			env := envOf(containerOf(t, workloadOf(t, rendering{objects: objs}, "sidecar"), "sidecar"))
			got, ok := env["GLIMPSE_SIDECAR_MAX_PAGES"]
			if tc.want == "" && ok {
				t.Errorf("GLIMPSE_SIDECAR_MAX_PAGES is set to %q; want it unset so the sidecar reads its memory limit", got.Value)
			}
			if tc.want != "" && got.Value != tc.want {
				t.Errorf("GLIMPSE_SIDECAR_MAX_PAGES is %q, want %q", got.Value, tc.want)
			}
		})
	}
}
