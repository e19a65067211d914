package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

func TestAtRate(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := served.Add(1)
		switch {
		case r.URL.Path == "/fail" && n%10 == 0:
			w.WriteHeader(http.StatusInternalServerError)
		case r.URL.Path == "/stall" && n == 20:
			time.Sleep(300 * time.Millisecond)
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()

	t.Run("it sends rate × duration requests, spread over the duration", func(t *testing.T) {
		served.Store(0)
		res, err := AtRate(context.Background(), RatePlan{URL: srv.URL + "/", Rate: 200, Connections: 4, Duration: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if res.Requests != 200 || res.Failures != 0 || served.Load() != 200 {
			t.Fatalf("%d requests, %d failures, %d served; want 200, 0, 200: %v", res.Requests, res.Failures, served.Load(), res.Errors)
		}
		if res.Elapsed < 900*time.Millisecond || res.Elapsed > 3*time.Second {
			t.Errorf("the run took %v, not about the second planned", res.Elapsed)
		}
	})
	t.Run("error statuses are failures and the connection goes on", func(t *testing.T) {
		served.Store(0)
		res, _ := AtRate(context.Background(), RatePlan{URL: srv.URL + "/fail", Rate: 100, Connections: 2, Duration: time.Second})
		if res.Requests != 100 || res.Failures != 10 {
			t.Fatalf("%d requests, %d failures; want 100 and 10", res.Requests, res.Failures)
		}
	})
	t.Run("a stall is charged to the requests that queued behind it", func(t *testing.T) {
		served.Store(0)
		res, err := AtRate(context.Background(), RatePlan{URL: srv.URL + "/stall", Rate: 100, Connections: 1, Duration: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		late := 0
		for _, d := range res.Latencies {
			if d >= 100*time.Millisecond {
				late++
			}
		}
		// 300 ms at one request per 10 ms: the stalled one and about 20
		// due while it stalled are at least 100 ms late.
		if late < 15 {
			t.Errorf("%d requests were 100 ms late or more; a 300 ms stall at 100/s makes about 20", late)
		}
	})
	t.Run("plans that cannot run are refused", func(t *testing.T) {
		for _, p := range []RatePlan{
			{URL: "https://x/", Rate: 1, Connections: 1, Duration: time.Second},
			{URL: srv.URL, Rate: 0, Connections: 1, Duration: time.Second},
			{URL: srv.URL, Rate: 1, Connections: 0, Duration: time.Second},
		} {
			if _, err := AtRate(context.Background(), p); err == nil {
				t.Errorf("%+v ran", p)
			}
		}
	})
}
