// Package pages serves the benchmark's targets on loopback: four synthetic
// pages shaped like real ones (a news article with JSON-LD, a long blog
// post, a gallery of many images, a script-heavy page that names itself
// late) with their images, scripts and API, and the real pages of the
// metadata corpus when its folder is there. What is measured against them
// is the caller's.
package pages
