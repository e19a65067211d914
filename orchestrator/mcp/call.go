package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// peerHeader carries the MCP request's client address to the tool that
// answers it: the SDK hands a tool the request's headers but not its
// connection. The endpoint sets it on every request it receives,
// replacing whatever a client sent, so a caller cannot choose whose
// anonymous quota it spends.
const peerHeader = "Glimpse-Mcp-Peer"

// maxAnswerBytes bounds an answer read back from the API: the largest
// JSON answer is the data rules' bound (4 MiB by default) with metadata
// around it, and a screenshot passed on as an image is smaller still.
const maxAnswerBytes = 32 << 20

// reply is an answer of the API, as the tool layer reads it.
type reply struct {
	status int
	header http.Header
	body   bytes.Buffer
	over   bool // the body passed maxAnswerBytes and was cut
}

func (r *reply) Header() http.Header { return r.header }

func (r *reply) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *reply) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.body.Len()+len(p) > maxAnswerBytes {
		r.over = true
		return 0, fmt.Errorf("the answer is larger than %d bytes", maxAnswerBytes)
	}
	return r.body.Write(p)
}

// get answers path?q through the API's handler in process, as the MCP
// caller: its API key, its address and, behind trusted proxies, its
// X-Forwarded-For.
func (s *Server) get(ctx context.Context, req *mcp.CallToolRequest, path string, q url.Values) (*reply, error) {
	uri := path
	if len(q) > 0 {
		uri += "?" + q.Encode()
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
	if err != nil {
		return nil, err
	}
	hr.RequestURI = uri
	hr.Host = "localhost"
	hr.RemoteAddr = "127.0.0.1:0"
	hr.Header.Set("Accept", "application/json")
	if req != nil && req.Extra != nil && req.Extra.Header != nil {
		h := req.Extra.Header
		if key := APIKey(h); key != "" {
			hr.Header.Set("x-api-key", key)
		}
		if xff := h.Values("X-Forwarded-For"); len(xff) > 0 {
			hr.Header["X-Forwarded-For"] = xff
		}
		if peer := h.Get(peerHeader); peer != "" {
			hr.RemoteAddr = peer
		}
	}
	rep := &reply{header: http.Header{}}
	s.api.ServeHTTP(rep, hr)
	if rep.status == 0 {
		rep.status = http.StatusOK
	}
	return rep, nil
}

// APIKey is the caller's key as an MCP client sends it: `Authorization:
// Bearer <key>`, which most clients' configuration has a place for, or
// the API's own `x-api-key`. None means the anonymous plan.
func APIKey(h http.Header) string {
	if key := strings.TrimSpace(h.Get("x-api-key")); key != "" {
		return key
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(h.Get("Authorization")), " ")
	if ok && strings.EqualFold(scheme, "Bearer") {
		return strings.TrimSpace(token)
	}
	return ""
}

// envelope is the API's error answer.
type envelope struct {
	Status  string          `json:"status"`
	Code    string          `json:"code"`
	Message string          `json:"message"`
	More    string          `json:"more,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// failure turns an API answer that is not a success into a tool error: the
// model reads "CODE: message", a program the envelope itself in
// structuredContent. Never a protocol error: the model must see what went
// wrong to change its call.
func failure(rep *reply) *mcp.CallToolResult {
	var env envelope
	if rep.over {
		env = envelope{Status: "error", Code: "EFATAL",
			Message: fmt.Sprintf("The answer is larger than the %d bytes a tool result may carry; narrow the request (a selector, fewer fields).", maxAnswerBytes)}
	} else if err := json.Unmarshal(rep.body.Bytes(), &env); err != nil || env.Code == "" {
		env = envelope{Status: "error", Code: "EFATAL",
			Message: fmt.Sprintf("glimpse answered %d without an error envelope (request %s); try again, and report it if it keeps failing.",
				rep.status, rep.header.Get("x-request-id"))}
	}
	return toolError(env)
}

func toolError(env envelope) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: env.Code + ": " + env.Message}},
		StructuredContent: env,
	}
}

// success is a JSON answer of the API: its data and what the target said.
type success struct {
	Data       json.RawMessage `json:"data"`
	StatusCode *int            `json:"statusCode,omitempty"`
}

// decode reads a JSON success, or gives the tool error the answer is.
func decode(rep *reply) (*success, *mcp.CallToolResult) {
	if rep.status != http.StatusOK || rep.over {
		return nil, failure(rep)
	}
	var ok success
	if err := json.Unmarshal(rep.body.Bytes(), &ok); err != nil {
		return nil, toolError(envelope{Status: "error", Code: "EFATAL",
			Message: fmt.Sprintf("glimpse's answer could not be read (request %s): %v", rep.header.Get("x-request-id"), err)})
	}
	return &ok, nil
}
