package client

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// A server that tells its clock (RigBench's simulator) gets its chunks
// timed by their stamps: at sent + (stamp − arrival)/S, however late the
// client reads them, and the lateness is the stream's ClockLag. A server
// whose stamps are malformed or absent is timed on arrival, as any other.
func TestServerClockTimesChunksByTheirStamps(t *testing.T) {
	const hold = 60 * time.Millisecond // the chunks wait this long before they are written
	var noClock atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if !noClock.Load() {
			w.Header().Set(HeaderSimArrival, "5000000")
			w.Header().Set(HeaderSimSpeed, "100")
		}
		w.WriteHeader(http.StatusOK)
		time.Sleep(hold)
		// 0.5 s and 1.5 s of server time after arrival: 5 ms and 15 ms
		// at 100×, both long before the client reads them. The third
		// stamp does not read as a whole number and is left out.
		io.WriteString(w, `data: {"sim_time_us":5500000,"choices":[{"index":0,"text":"a","finish_reason":null}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`+"\n\n")
		io.WriteString(w, `data: {"sim_time_us":6500000,"choices":[{"index":0,"text":"b","finish_reason":null}],"usage":{"prompt_tokens":3,"completion_tokens":2}}`+"\n\n")
		io.WriteString(w, `data: {"sim_time_us":-7,"choices":[{"index":0,"text":"c","finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":3}}`+"\n\n")
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)

	stream := func() (StreamResult, []time.Time) {
		c, err := New(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		var at []time.Time
		res, err := c.Stream(context.Background(), CompletionRequest{Prompt: "x", MaxTokens: 3}, func(t time.Time, n int) { at = append(at, t) })
		if err != nil {
			t.Fatal(err)
		}
		if len(at) != 3 || res.Tokens != 3 {
			t.Fatalf("%d chunks, %d tokens", len(at), res.Tokens)
		}
		return res, at
	}

	res, at := stream()
	if !res.ServerClock {
		t.Fatal("the clock headers were not read")
	}
	for i, want := range []time.Duration{5 * time.Millisecond, 15 * time.Millisecond} {
		if got := at[i].Sub(res.Sent); got != want {
			t.Errorf("chunk %d placed %v after the send, want %v (its stamp)", i, got, want)
		}
	}
	if got := at[2].Sub(res.Sent); got < hold {
		t.Errorf("the chunk with a malformed stamp was placed %v after the send, before it could arrive", got)
	}
	if res.ClockLag < hold-15*time.Millisecond {
		t.Errorf("ClockLag %v, want at least %v: the chunks were read that late", res.ClockLag, hold-15*time.Millisecond)
	}
	if res.FirstToken != at[0] {
		t.Errorf("FirstToken %v is not the first chunk's place %v", res.FirstToken, at[0])
	}

	// The same chunks without the headers: timed on arrival.
	noClock.Store(true)
	res, at = stream()
	if res.ServerClock || res.ClockLag != 0 {
		t.Errorf("no clock headers, yet ServerClock %v, ClockLag %v", res.ServerClock, res.ClockLag)
	}
	if got := at[0].Sub(res.Sent); got < hold {
		t.Errorf("without a clock the first chunk was placed %v after the send, before it arrived", got)
	}
}

// TellSendTimes puts the client's wall clock at the send into each
// streamed request to a server on this machine, and nothing into the
// requests of a client that was not told.
func TestTellSendTimes(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get(HeaderSimSent))
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"text":"a","finish_reason":"length"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	for _, tell := range []bool{false, true} {
		c, err := New(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if tell {
			c.TellSendTimes()
		}
		before := time.Now().UnixNano()
		res, err := c.Stream(context.Background(), CompletionRequest{Prompt: "x", MaxTokens: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		h := got.Load().(string)
		switch {
		case !tell && h != "":
			t.Errorf("a client not told sent %s: %q", HeaderSimSent, h)
		case tell && h != strconv.FormatInt(res.Sent.UnixNano(), 10):
			t.Errorf("%s %q, want the send %d (the test began at %d)", HeaderSimSent, h, res.Sent.UnixNano(), before)
		}
	}
}
