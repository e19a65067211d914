// Package docs holds glimpse's documentation, the Markdown pages beside
// this file, and the tests that keep it honest: every relative link and
// #anchor in the repository's Markdown resolves to a file and a heading in
// the tree, every external link is a well-formed URL, and no code comment
// cites a Markdown file that is not in the tree. It has no code of its own.
package docs
