package markdown

import "strings"

// An author box ("Jane Doe is a staff writer who covers …", with a photo
// and links to her other posts) closes many articles on every page of a
// site: it is about the writer, not the subject, and the answer's
// metadata names the author. It is known by class or id words that pair
// the author with a box, a biography or a profile; "author-info" and
// "card-authors" also name bylines, the signature under a testimonial and
// lists of a paper's authors, and are left alone.

// authorBoxParts are the words that, beside "author", name the box.
var authorBoxParts = map[string]bool{
	"bio": true, "biography": true, "profile": true, "description": true, "desc": true, "box": true,
	"about": true,
}

// authorBox reports class and id words of an author box: "author-bio",
// "about-author", "authorBox", "entry-author-profile".
func authorBox(words []string) bool {
	author, part := false, false
	for _, w := range words {
		switch {
		case w == "author":
			author = true
		case authorBoxParts[w]:
			part = true
		case strings.HasPrefix(w, "author") && authorBoxParts[strings.TrimPrefix(w, "author")],
			strings.HasPrefix(w, "about") && strings.TrimPrefix(w, "about") == "author":
			return true
		}
	}
	return author && part
}
