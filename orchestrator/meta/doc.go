// Package meta owns glimpse's metadata rules: pure functions that read a
// parsed HTML document and the page's final URL and return the title,
// description, lang, author, publisher, date and url of the page, plus ranked
// image and logo candidates. ParseDocument parses the page for them, so that
// hostile markup (nesting past the HTML parser's limit, bytes that are not
// UTF-8) still yields a document. Fetching (probing candidates, the web app
// manifest), the meta switches and rendering the live DOM belong to callers;
// this package only decodes the bytes they hand back (ImageInfo, IconsFromManifest).
package meta
