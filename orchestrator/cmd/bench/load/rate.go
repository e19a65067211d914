package load

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// RatePlan is an open-loop run: requests are due at a fixed rate whatever
// the answers do, spread over keep-alive connections.
type RatePlan struct {
	URL         string // http only
	Rate        float64
	Connections int
	Duration    time.Duration
}

// AtRate sends GET plan.URL at plan.Rate per second for plan.Duration over
// plan.Connections connections. Request i is due at start + i/Rate; its
// latency runs from when it was due, not from when it was sent, so a
// stalled server is charged for the requests that queued behind it
// (no coordinated omission, as in wrk2). A closed loop such as wrk at full
// speed measures latency at saturation instead, where it is the number of
// connections divided by the throughput plus the scheduler's noise.
//
// The client is a minimal HTTP/1.1 one (a prepared request, the header
// block and a Content-Length body read back) so that it takes little of
// the cores it shares with the server. A status of 400 or more, or a
// broken connection, is a failure.
func AtRate(ctx context.Context, plan RatePlan) (Result, error) {
	u, err := url.Parse(plan.URL)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return Result{}, fmt.Errorf("an open-loop run needs an http:// URL, not %q", plan.URL)
	}
	if plan.Rate <= 0 || plan.Connections < 1 || plan.Duration <= 0 {
		return Result{}, errors.New("an open-loop run needs a rate, connections and a duration")
	}
	request := []byte("GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: glimpse-bench\r\n\r\n")
	total := int64(plan.Rate * plan.Duration.Seconds())
	interval := time.Duration(float64(time.Second) / plan.Rate)

	var (
		next atomic.Int64
		mu   sync.Mutex
		res  Result
		wg   sync.WaitGroup
	)
	res.Latencies = make([]time.Duration, 0, total)
	start := time.Now().Add(50 * time.Millisecond) // every connection is open by then
	for range plan.Connections {
		conn, err := net.Dial("tcp", u.Host)
		if err != nil {
			return Result{}, fmt.Errorf("connecting to %s: %w", u.Host, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close()
			stop := context.AfterFunc(ctx, func() { conn.Close() })
			defer stop()
			br := bufio.NewReaderSize(conn, 16<<10)
			local := make([]time.Duration, 0, total/int64(plan.Connections)+1)
			var fails []error
			for {
				i := next.Add(1) - 1
				if i >= total || ctx.Err() != nil {
					break
				}
				due := start.Add(time.Duration(i) * interval)
				if d := time.Until(due); d > 0 {
					time.Sleep(d)
				}
				err := roundTrip(conn, br, request)
				local = append(local, time.Since(due))
				if err != nil {
					fails = append(fails, err)
					if ctx.Err() == nil && !errors.Is(err, errStatus) {
						break // the connection is broken; the rest of its share is not sent
					}
				}
			}
			mu.Lock()
			res.Latencies = append(res.Latencies, local...)
			res.Requests += len(local)
			for _, e := range fails {
				res.Failures++
				if len(res.Errors) < maxErrors {
					res.Errors = append(res.Errors, e)
				}
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	return res, ctx.Err()
}

var errStatus = errors.New("the server answered with an error status")

// roundTrip sends one request and reads its whole answer. It reads the
// header block in place (bufio's own buffer), so the client allocates
// nothing per request and its garbage collector adds no pauses of its own
// to the latencies.
func roundTrip(conn net.Conn, br *bufio.Reader, request []byte) error {
	if _, err := conn.Write(request); err != nil {
		return err
	}
	line, err := br.ReadSlice('\n')
	if err != nil {
		return err
	}
	// "HTTP/1.1 200 OK"
	_, rest, ok := bytes.Cut(line, []byte(" "))
	code, _, _ := bytes.Cut(rest, []byte(" "))
	status, err := strconv.Atoi(string(bytes.TrimSpace(code)))
	if !ok || err != nil {
		return fmt.Errorf("a status line of %q", bytes.TrimSpace(line))
	}
	length := -1
	for {
		h, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		h = bytes.TrimRight(h, "\r\n")
		if len(h) == 0 {
			break
		}
		name, value, _ := bytes.Cut(h, []byte(":"))
		if bytes.EqualFold(name, []byte("Content-Length")) {
			if length, err = strconv.Atoi(string(bytes.TrimSpace(value))); err != nil {
				return fmt.Errorf("a Content-Length of %q", value)
			}
		}
	}
	if length < 0 {
		return errors.New("an answer without Content-Length, which this client cannot delimit")
	}
	if _, err := br.Discard(length); err != nil {
		return fmt.Errorf("reading the body: %w", err)
	}
	if status >= 400 {
		return fmt.Errorf("%w: HTTP %d", errStatus, status)
	}
	return nil
}
