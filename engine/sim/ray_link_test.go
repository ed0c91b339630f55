package sim_test

import (
	"bytes"
	"context"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rigbench/rigbench/engine/cluster"
	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/sim"
)

// linkTest runs the stand-in's server and a client over real TCP on
// 127.0.0.1 with the simulated link env, and returns the client's figures.
func linkTest(t *testing.T, env string, client func(port int) (string, error)) cluster.Link {
	t.Helper()
	port, err := docker.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == sim.NetworkEnv {
			return env
		}
		return ""
	}
	served := make(chan int, 1)
	var serr bytes.Buffer
	go func() {
		served <- sim.Ray(context.Background(), []string{"linktest", "--serve", strconv.Itoa(port), "--clients", "1"}, getenv, &bytes.Buffer{}, &serr)
	}()
	out, err := client(port)
	if err != nil {
		t.Fatalf("client: %v\n%s", err, out)
	}
	if rc := <-served; rc != 0 {
		t.Fatalf("server ended %d: %s", rc, serr.String())
	}
	l, err := cluster.ParseLink(out)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// The stand-in measures over real TCP and floors the figures at the
// simulated link's: a 1 Gb/s link with 200 µs each way reads at most
// 1 Gb/s and at least 400 µs round trip, the default link at most 10 Gb/s.
func TestStandInLinkTestReadsTheSimulatedLink(t *testing.T) {
	standIn := func(env string) func(int) (string, error) {
		return func(port int) (string, error) {
			var out, errb bytes.Buffer
			getenv := func(k string) string {
				if k == sim.NetworkEnv {
					return env
				}
				return ""
			}
			_, client := cluster.LinkCommands(true, "127.0.0.1", port, 1)
			if rc := sim.Ray(context.Background(), client[1:], getenv, &out, &errb); rc != 0 {
				return errb.String(), exec.ErrNotFound
			}
			return out.String(), nil
		}
	}
	slow := linkTest(t, "1,200", standIn("1,200"))
	if slow.Gbps > 1.0001 || slow.Gbps < 0.5 || slow.RTTUS < 400 {
		t.Errorf("on a simulated 1 Gb/s, 200 µs link: %+v", slow)
	}
	fast := linkTest(t, "", standIn(""))
	if fast.Gbps > 10.0001 || fast.Gbps < 1 || fast.RTTUS < 100 {
		t.Errorf("on the default simulated link (10 Gb/s, 50 µs): %+v", fast)
	}
}

// The Python client a real vLLM image runs speaks the same protocol as
// the stand-in's server (and so as the Python server).
func TestPythonLinkClientSpeaksTheProtocol(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 here: the real image's client is checked where Python is")
	}
	l := linkTest(t, "", func(port int) (string, error) {
		_, client := cluster.LinkCommands(false, "127.0.0.1", port, 1)
		cmd := exec.Command(client[0], client[1], client[2])
		out, err := cmd.CombinedOutput()
		return string(out), err
	})
	if !(l.Gbps > 0) || !(l.RTTUS > 0) {
		t.Errorf("python client over loopback: %+v", l)
	}
}

// The Python server a real vLLM image runs answers the stand-in's client
// (which waits for it to bind), over real TCP on 127.0.0.1: with the test
// above, each end of either image speaks the other's protocol.
func TestPythonLinkServerAnswersTheProtocol(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 here: the real image's server is checked where Python is")
	}
	port, err := docker.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	server, _ := cluster.LinkCommands(false, "127.0.0.1", port, 1)
	srv := exec.Command(server[0], server[1], server[2])
	var serr bytes.Buffer
	srv.Stderr = &serr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	_, client := cluster.LinkCommands(true, "127.0.0.1", port, 1)
	var out, cerr bytes.Buffer
	if rc := sim.Ray(context.Background(), client[1:], func(string) string { return "" }, &out, &cerr); rc != 0 {
		t.Fatalf("client ended %d: %s", rc, cerr.String())
	}
	if err := srv.Wait(); err != nil {
		t.Fatalf("server: %v\n%s", err, serr.String())
	}
	l, err := cluster.ParseLink(out.String())
	if err != nil || !(l.Gbps > 0) || !(l.RTTUS > 0) {
		t.Errorf("python server over loopback: %+v, %v", l, err)
	}
}
