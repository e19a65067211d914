package mcp

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Config is what the endpoint is told.
type Config struct {
	// API answers GET /?… and GET /files/…; the tools call it in process.
	API http.Handler
	// Version is the server version the endpoint reports to clients.
	Version string
	// MaxImageBytes: a screenshot up to this size also comes back as MCP
	// image content; a larger one only as its stored URL. Zero: 1 MiB.
	MaxImageBytes int64
	Logger        *slog.Logger
}

// Server is the MCP endpoint.
type Server struct {
	api      http.Handler
	maxImage int64
	handler  http.Handler
}

// New builds the endpoint. It is stateless: every POST carries a whole
// call, so any replica behind a Service answers it and nothing is kept
// between calls.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MaxImageBytes == 0 {
		cfg.MaxImageBytes = 1 << 20
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	s := &Server{api: cfg.API, maxImage: cfg.MaxImageBytes}
	srv := mcp.NewServer(&mcp.Implementation{Name: "glimpse", Title: "glimpse", Version: cfg.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       cfg.Logger,
	})
	s.addTools(srv)
	srv.AddReceivingMiddleware(codedErrors)
	stream := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{
			Stateless: true, JSONResponse: true, Logger: cfg.Logger,
			// A call whose client went away stops its render.
			PropagateRequestCancellation: true,
			// The SDK refuses loopback connections whose Host is another
			// name, against DNS rebinding towards a private local server.
			// glimpse's tools give nothing GET / does not give anyone, and
			// a reverse proxy on the same machine sends its public name.
			DisableLocalhostProtection: true,
		})
	s.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set(peerHeader, r.RemoteAddr)
		stream.ServeHTTP(w, r)
	})
	return s
}

// ServeHTTP answers the Streamable HTTP transport at the endpoint's path.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// codedErrors gives a tool error the SDK made itself, for arguments that
// do not fit the tool's input schema, the code the API gives a query it
// cannot use, so that every tool error carries one.
func codedErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		r, ok := res.(*mcp.CallToolResult)
		if err != nil || !ok || !r.IsError || r.StructuredContent != nil {
			return res, err
		}
		var msg []string
		for _, c := range r.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				msg = append(msg, t.Text)
			}
		}
		env := envelope{Status: "fail", Code: "EINVALQUERY",
			Message: "The tool's arguments do not fit its input schema: " + strings.Join(msg, "; ")}
		return toolError(env), nil
	}
}

const instructions = `glimpse reads web pages for you: their metadata, their main content as Markdown, their text, HTML, links and images, values picked out by CSS selectors, and a screenshot or PDF stored at a public URL.
Every tool takes the page's http(s) URL; private and internal addresses are refused. Each call counts as one request against the caller's plan (the API key in the Authorization: Bearer or x-api-key header), and identical calls are answered from a cache for 24 hours (force=true renders again).
Prefer markdown for reading a page, metadata for a summary card, links to explore a site. A failed call returns glimpse's error code and a message that says what to change.`
