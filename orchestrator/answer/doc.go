// Package answer owns the data object of a successful answer: metadata
// fields in API order, image and logo picked and probed, data rules
// applied, the PDF and screenshot stored and described as file objects,
// the filter, and the JSON envelope. It imports render, query, meta and
// apierr, plus storage; never api or Echo.
package answer
