package meta

import "testing"

// TestBylineTitlesAreCut covers bylines that run a name into the job title
// or label printed beside it.
func TestBylineTitlesAreCut(t *testing.T) {
	tests := []struct {
		name, html, want string
	}{
		{"a title after the name is cut",
			`<h1>A guide</h1><div class="author-box">By Liz Kenny Former Management Consultant</div>`, "Liz Kenny"},
		{"a department and a role after the name are cut",
			`<h1>A story</h1><div class="byline">By Harry Rabinowitz Tech Reporter</div>`, "Harry Rabinowitz"},
		{"a title after a comma is cut",
			`<h1>A story</h1><div class="byline">By Jane Doe, Staff Writer</div>`, "Jane Doe"},
		{"a label after the name is cut",
			`<h1>A story</h1><div class="author">By Craig Mason Last updated</div>`, "Craig Mason"},
		{"a three-word name keeps its words",
			`<h1>A story</h1><div class="byline">By Mary Ann Smith Senior Editor</div>`, "Mary Ann Smith"},
		{"a name the markup gives is not cut, even when it reads like a title",
			`<meta name="author" content="Top Growth Marketing">`, "Top Growth Marketing"},
		{"quotes around a name are not part of it",
			`<meta name="author" content="“David Kim”">`, "David Kim"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := value(extractHTML(t, tt.html).Author); got != tt.want {
				t.Errorf("author = %q, want %q", got, tt.want)
			}
		})
	}
}
