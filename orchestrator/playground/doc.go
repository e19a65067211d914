// Package playground is the page a person's browser gets at / without a
// `url`: a form that calls the API (the same quotas, the same errors) and
// shows the preview card, the screenshot, the PDF, the Markdown, the raw
// JSON and the curl and mql calls that give the same answer. One HTML
// page, one script and one stylesheet, embedded; no build step, nothing
// from other origins, a strict Content-Security-Policy. It knows the API
// only as its callers do.
package playground
