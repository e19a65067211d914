// Package mcp is glimpse's Model Context Protocol endpoint: tools for
// language-model agents (metadata, markdown, text, html, screenshot, pdf,
// links, images, extract) served over Streamable HTTP. Each tool is a thin
// layer over GET /: it builds the same query and answers it through the
// API's own handler in process, so the address rule, the caller's plan and
// quota, the cache, the bounds and the error codes are the API's. It owns
// the tools' names, descriptions and input schemas and how an API answer
// becomes a tool result; it knows nothing of rendering or storage.
package mcp
