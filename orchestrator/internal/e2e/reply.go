package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// tryClient bounds every call: a request that hangs fails the test
// instead of stalling it, a while after the longest timeout a test gives
// (180 s). It never follows a redirect: an answer that sent the caller on
// to an address a hostile page named must show as that answer, and test
// traffic stays on loopback.
var tryClient = &http.Client{Timeout: 200 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// Reply is one call to the API as a goroutine sees it: the answer, or the
// transport error, and how long it took.
type Reply struct {
	Answer
	Err  error
	Took time.Duration
}

func (r Reply) String() string {
	if r.Err != nil {
		return fmt.Sprintf("no answer after %s: %v", r.Took.Round(time.Millisecond), r.Err)
	}
	body := string(r.Raw)
	if len(body) > 300 {
		body = body[:300] + "…"
	}
	return fmt.Sprintf("%d %s after %s: %s", r.HTTP, r.Code, r.Took.Round(time.Millisecond), body)
}

// Clear5xx reports an error answer a caller can act on: a 5xx status with
// an error code and a message, never a bare 500 or a broken connection.
func (r Reply) Clear5xx() bool {
	return r.Err == nil && r.HTTP >= 500 && r.Code != "" && r.Message != "" && r.Status == "error"
}

// ClearFailure is a clear 5xx, or the 424 EFETCH of a page that crashed
// its renderer: a fault may kill the renderer of any request, and a crash
// is answered as the page's failure, which a retry does not mend.
func (r Reply) ClearFailure() bool {
	return r.Clear5xx() || r.Err == nil && r.HTTP == 424 && r.Code == "EFETCH" && r.Message != "" && r.Status == "fail"
}

// TryGet calls the API without failing the test, so goroutines may use
// it.
func (ta *App) TryGet(target, extra string, hdr ...string) Reply {
	return ta.TryDo(Query(target, extra), hdr...)
}

// TryDo is TryGet with a raw query.
func (ta *App) TryDo(rawQuery string, hdr ...string) Reply {
	start := time.Now()
	req, err := http.NewRequest(http.MethodGet, ta.URL()+"/?"+rawQuery, nil)
	if err != nil {
		return Reply{Err: err}
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := tryClient.Do(req)
	if err != nil {
		return Reply{Err: err, Took: time.Since(start)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	r := Reply{Answer: Answer{HTTP: resp.StatusCode, Header: resp.Header, Raw: body}, Err: err, Took: time.Since(start)}
	if json.Valid(body) {
		_ = json.Unmarshal(body, &r.Answer)
	}
	return r
}

// CloseIdleConnections closes the idle connections of TryGet's client,
// for tests that count this process's goroutines and descriptors.
func CloseIdleConnections() { tryClient.CloseIdleConnections() }
