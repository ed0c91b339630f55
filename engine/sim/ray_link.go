package sim

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"
)

// NetworkEnv sets the simulated link of a cluster on every node of the
// simulator image, "GBPS[,LATENCY_US]" (such as "1,200"): the stand-in
// `ray linktest` measures it, and the simulator's `vllm serve` models it
// unless --network-gbps or --network-latency-us say otherwise. A cluster
// launch passes a launch's variables to every node, so one `-e` sets both.
const NetworkEnv = "RIGBENCH_SIM_NETWORK"

// NetworkFromEnv is n with the fields it leaves at zero read from
// NetworkEnv (unset or unreadable: n as given).
func NetworkFromEnv(getenv func(string) string, n Network) Network {
	g, l, _ := strings.Cut(getenv(NetworkEnv), ",")
	if v, err := strconv.ParseFloat(strings.TrimSpace(g), 64); err == nil && v > 0 && n.Gbps <= 0 {
		n.Gbps = v
	}
	if v, err := strconv.ParseFloat(strings.TrimSpace(l), 64); err == nil && v > 0 && n.LatencyUS <= 0 {
		n.LatencyUS = v
	}
	return n
}

// rayLinkTest is the stand-in's `ray linktest` (Ray has no such command):
// `--serve PORT --clients N` answers N clients in engine/cluster's link
// protocol, `--address HOST:PORT --bytes B --pings K` measures toward it
// over real TCP and prints engine/cluster's line. The figures are the
// measured ones floored at the simulated link's (NetworkEnv, else
// DefaultNetwork): two containers on one machine meet over loopback,
// far faster than the link `vllm serve` models, and the figure must be
// the link the server's time model pays.
func rayLinkTest(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	var serve, clients, bytes, pings int
	var addr string
	clients, bytes, pings = 1, 32<<20, 20
	for i := 0; i+1 < len(args); i += 2 {
		v := args[i+1]
		var err error
		switch args[i] {
		case "--serve":
			serve, err = strconv.Atoi(v)
		case "--clients":
			clients, err = strconv.Atoi(v)
		case "--address":
			addr = v
		case "--bytes":
			bytes, err = strconv.Atoi(v)
		case "--pings":
			pings, err = strconv.Atoi(v)
		default:
			err = fmt.Errorf("no such option: %s", args[i])
		}
		if err != nil {
			fmt.Fprintf(stderr, "ray linktest: %v %s\n", err, RayStandInNote)
			return 2
		}
	}
	var err error
	if serve > 0 {
		err = linkServe(ctx, serve, clients)
	} else if addr != "" {
		err = linkMeasure(ctx, addr, bytes, pings, NetworkFromEnv(getenv, Network{}).orDefault(), stdout)
	} else {
		err = fmt.Errorf("give --serve PORT or --address HOST:PORT")
	}
	if err != nil {
		fmt.Fprintf(stderr, "ray linktest: %v %s\n", err, RayStandInNote)
		return 1
	}
	return 0
}

// linkServe answers clients connections, then ends (8 s for each to come).
func linkServe(ctx context.Context, port, clients int) error {
	ln, err := net.Listen("tcp", net.JoinHostPort("0.0.0.0", strconv.Itoa(port)))
	if err != nil {
		return err
	}
	defer ln.Close()
	go func() { <-ctx.Done(); ln.Close() }()
	for range clients {
		ln.(*net.TCPListener).SetDeadline(time.Now().Add(8 * time.Second))
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		linkAnswer(c)
	}
	return nil
}

// linkAnswer speaks the protocol's server side until the client closes.
func linkAnswer(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(8 * time.Second))
	r := bufio.NewReaderSize(c, 1<<20)
	for {
		b, err := r.ReadByte()
		if err != nil {
			return
		}
		if b == 'p' {
			c.Write([]byte{'p'})
			continue
		}
		var h [8]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return
		}
		if _, err := io.CopyN(io.Discard, r, int64(binary.BigEndian.Uint64(h[:]))); err != nil {
			return
		}
		c.Write([]byte{'k'})
	}
}

// linkMeasure is the client: pings, then the stream, then the line.
func linkMeasure(ctx context.Context, addr string, n, pings int, floor Network, stdout io.Writer) error {
	var c net.Conn
	var err error
	for end := time.Now().Add(5 * time.Second); ; { // the server may still be starting
		d := net.Dialer{Timeout: time.Second}
		if c, err = d.DialContext(ctx, "tcp", addr); err == nil || time.Now().After(end) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(8 * time.Second))
	one := make([]byte, 1)
	rtts := make([]float64, 0, pings)
	for range pings {
		t := time.Now()
		if _, err := c.Write([]byte{'p'}); err != nil {
			return err
		}
		if _, err := io.ReadFull(c, one); err != nil {
			return err
		}
		rtts = append(rtts, time.Since(t).Seconds())
	}
	slices.Sort(rtts)
	rtt := max(rtts[len(rtts)/2], 2*floor.latencyS())
	var h [9]byte
	h[0] = 'd'
	binary.BigEndian.PutUint64(h[1:], uint64(n))
	t := time.Now()
	if _, err := c.Write(h[:]); err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	for left := n; left > 0; left -= len(buf) {
		if _, err := c.Write(buf[:min(left, len(buf))]); err != nil {
			return err
		}
	}
	if _, err := io.ReadFull(c, one); err != nil {
		return err
	}
	took := max(time.Since(t).Seconds(), float64(n)/floor.bytesPerS())
	fmt.Fprintf(stdout, "rigbench-link rtt_us=%.1f gbps=%.4f\n%s\n", rtt*1e6, float64(n)*8/took/1e9, RayStandInNote)
	return nil
}
