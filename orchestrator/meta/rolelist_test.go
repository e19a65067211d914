package meta

import "testing"

// TestNamesBeforeASharedRole covers bylines that list their writers before
// the role they share, and bylines opened by an "Authors:" label.
func TestNamesBeforeASharedRole(t *testing.T) {
	tests := []struct {
		name, html, want string
	}{
		{"an authors label, two names and their shared role",
			`<h1>Lighting for seedlings</h1><section class="author-block"><p>Authors: Iris Holm and Teo Varga, Extension horticulture educators</p></section>`,
			"Iris Holm and Teo Varga"},
		{"by, one name and a long appointment",
			`<h1>Notes</h1><div class="byline">By Odile Marchetti, Representative to the Candidate Review Panel of the Society</div>`,
			"Odile Marchetti"},
		{"an authors label before a sentence names nobody",
			`<h1>Notes</h1><div class="author-note">Authors: please send drafts to the editor, not to the board</div>`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := value(extractHTML(t, tt.html).Author); got != tt.want {
				t.Errorf("author = %q, want %q", got, tt.want)
			}
		})
	}
}
