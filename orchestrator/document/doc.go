// Package document reads documents that are not web pages (PDF, Word,
// Excel, PowerPoint, OpenDocument text, RTF, EPUB) into the semantic HTML
// glimpse answers `text`, `html` and `markdown` from, and into the
// document's own properties (title, author, dates, language). Every reader
// is bounded: archives by entries, bytes and compression ratio, XML by
// depth and tokens, the output by bytes and table cells, PDFs by a
// subprocess's time, memory and output. Fetching the file, and the byte
// bound on it, belong to callers.
package document
