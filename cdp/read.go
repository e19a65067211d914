package cdp

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
)

// incoming is any message the browser sends: a reply has an id, an event a
// method.
type incoming struct {
	ID        int64            `json:"id,omitzero"`
	SessionID target.SessionID `json:"sessionId,omitzero"`
	Method    string           `json:"method,omitzero"`
	Params    jsonv2.Value     `json:"params,omitzero"`
	Result    jsonv2.Value     `json:"result,omitzero"`
	Error     *wireError       `json:"error,omitzero"`
}

type wireError struct {
	Code    int64        `json:"code"`
	Message string       `json:"message"`
	Data    jsonv2.Value `json:"data,omitzero"`
}

// lenient lets one odd string from a page (Chromium passes lone surrogates
// through) cost nothing worse than a replacement character, instead of a
// dropped reply whose caller then waits for its deadline.
var lenient = jsonv2.AllowInvalidUTF8(true)

var emptyObject = jsonv2.Value("{}")

// Methods that end a session. The Target ones arrive on the browser session
// and name the session or target; the Inspector ones arrive on the session
// itself.
const (
	methodDetachedFromTarget = "Target.detachedFromTarget"
	methodTargetCrashed      = "Target.targetCrashed"
	methodTargetDestroyed    = "Target.targetDestroyed"
	methodInspectorDetached  = "Inspector.detached"
	methodInspectorCrashed   = "Inspector.targetCrashed"
)

func (c *Conn) readLoop() {
	defer close(c.done)
	for {
		data, err := c.t.ReadMessage()
		if err != nil {
			if c.shutdown(fmt.Errorf("%w: reading from the browser failed: %w", ErrClosed, err)) {
				switch {
				case c.page && errors.Is(err, ErrMessageTooLarge):
					c.log.Warn("A page made the browser send more than its connection's read limit; that page's connection ends, the browser's stays.", "target", c.browser.targetID, "err", err)
				case c.page:
					c.log.Debug("The DevTools connection to a page ended.", "target", c.browser.targetID, "err", err)
				default:
					c.log.Warn("The DevTools connection to the browser was lost; pending calls fail and sessions end.", "err", err)
				}
			}
			c.closeTransport()
			return
		}
		c.handle(data)
	}
}

func (c *Conn) handle(data []byte) {
	var msg incoming
	if err := jsonv2.Unmarshal(data, &msg, lenient); err != nil {
		c.log.Warn("Skipped a DevTools message that is not valid JSON of the expected shape.", "err", err, "message", excerpt(data))
		c.failMalformedReply(data, err)
		return
	}
	switch {
	case msg.ID != 0:
		c.handleReply(&msg)
	case msg.Method != "":
		c.handleEvent(&msg)
	default:
		c.log.Warn("Skipped a DevTools message that has neither an id nor a method.", "message", excerpt(data))
	}
}

func (c *Conn) handleReply(msg *incoming) {
	pc, ok := c.take(msg.ID)
	if !ok {
		// Its caller gave up (context ended) or the id was never ours.
		c.log.Debug("Ignored a DevTools reply that no call is waiting for.", "id", msg.ID)
		return
	}
	var r reply
	switch {
	case msg.Error != nil:
		r.err = &Error{Method: pc.method, Code: msg.Error.Code, Message: msg.Error.Message, Data: errorData(msg.Error.Data)}
	case pc.attach != "":
		var res target.AttachToTargetResult
		if err := jsonv2.Unmarshal(orEmpty(msg.Result), &res, lenient); err != nil {
			r.err = fmt.Errorf("decoding the reply to %s: %w", pc.method, err)
		} else if res.SessionID == "" {
			r.err = fmt.Errorf("the browser answered %s for target %s without a session id", pc.method, pc.attach)
		} else {
			r.session = c.addSession(res.SessionID, pc.attach)
		}
	default:
		r.result = msg.Result
	}
	pc.reply <- r
}

// failMalformedReply fails the call a malformed reply was meant for, when its
// id can still be read, so the caller learns now rather than at its deadline.
func (c *Conn) failMalformedReply(data []byte, cause error) {
	var idOnly struct {
		ID int64 `json:"id"`
	}
	if jsonv2.Unmarshal(data, &idOnly, lenient) != nil || idOnly.ID == 0 {
		return
	}
	if pc, ok := c.take(idOnly.ID); ok {
		pc.reply <- reply{err: fmt.Errorf("the browser's reply to %s is malformed: %w", pc.method, cause)}
	}
}

func (c *Conn) handleEvent(msg *incoming) {
	s := c.lookup(msg.SessionID)
	if s == nil {
		c.log.Debug("Ignored a DevTools event for a session that is not attached.", "method", msg.Method, "session", msg.SessionID)
		return
	}
	params := orEmpty(msg.Params)
	// Subscribers see the event before it ends anything, so a crash or
	// detach is delivered ahead of the channel closing.
	s.deliver(msg.Method, params)

	if s == c.browser && c.page {
		// The page's own endpoint: the page ending ends the connection,
		// which Chromium may keep open for a crashed page.
		switch msg.Method {
		case methodInspectorDetached, methodInspectorCrashed:
			err := fmt.Errorf("%w: %w: the page %s ended (%s)", ErrClosed, ErrSessionClosed, s.targetID, msg.Method)
			c.shutdown(err)
			go c.closeTransport()
		}
		return
	}
	if s == c.browser {
		switch msg.Method {
		case methodDetachedFromTarget:
			var ev target.EventDetachedFromTarget
			if c.decodeEvent(msg.Method, params, &ev) {
				if gone := c.lookup(ev.SessionID); gone != nil && gone != c.browser {
					c.endSession(gone, fmt.Errorf("%w: the browser detached session %s", ErrSessionClosed, ev.SessionID))
				}
			}
		case methodTargetCrashed:
			var ev target.EventTargetCrashed
			if c.decodeEvent(msg.Method, params, &ev) {
				for _, gone := range c.sessionsOf(ev.TargetID) {
					c.endSession(gone, fmt.Errorf("%w: target %s crashed (%s, code %d)", ErrSessionClosed, ev.TargetID, ev.Status, ev.ErrorCode))
				}
			}
		case methodTargetDestroyed:
			var ev target.EventTargetDestroyed
			if c.decodeEvent(msg.Method, params, &ev) {
				for _, gone := range c.sessionsOf(ev.TargetID) {
					c.endSession(gone, fmt.Errorf("%w: target %s was destroyed", ErrSessionClosed, ev.TargetID))
				}
			}
		}
		return
	}
	switch msg.Method {
	case methodInspectorDetached:
		var ev struct {
			Reason string `json:"reason"`
		}
		c.decodeEvent(msg.Method, params, &ev)
		c.endSession(s, fmt.Errorf("%w: the browser detached session %s (%s)", ErrSessionClosed, s.id, ev.Reason))
	case methodInspectorCrashed:
		c.endSession(s, fmt.Errorf("%w: the target of session %s crashed", ErrSessionClosed, s.id))
	}
}

func (c *Conn) decodeEvent(method string, params jsonv2.Value, v any) bool {
	if err := jsonv2.Unmarshal(params, v, lenient); err != nil {
		c.log.Warn("Skipped the session bookkeeping of a DevTools event whose params do not decode.", "method", method, "err", err)
		return false
	}
	return true
}

// orEmpty turns absent or null params and results into {}, so that decoding
// them into a struct works as it does for any other empty object.
func orEmpty(v jsonv2.Value) jsonv2.Value {
	t := bytes.TrimSpace(v)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return emptyObject
	}
	return v
}

// errorData renders the optional data of a protocol error: usually a string,
// kept as raw JSON otherwise.
func errorData(v jsonv2.Value) string {
	if len(v) == 0 {
		return ""
	}
	var s string
	if err := jsonv2.Unmarshal(v, &s, lenient); err == nil {
		return s
	}
	return string(v)
}

// excerpt keeps log lines short when a huge message is malformed.
func excerpt(data []byte) slog.Value {
	const limit = 200
	if len(data) <= limit {
		return slog.StringValue(string(data))
	}
	return slog.StringValue(string(data[:limit]) + "…")
}
