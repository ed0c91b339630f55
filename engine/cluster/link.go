package cluster

import (
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
)

// The link between the rigs is measured before `vllm serve` starts, with
// the image's own tools (nothing is installed on a rig): a server in the
// head's container and a client in each worker's, over the addresses the
// nodes use. The client sends LinkPings one-byte pings, each answered at
// once (the round trip's median is the latency figure), then LinkBytes in
// one stream acknowledged at its end (bytes × 8 ÷ the time is the rate).
// Both ends speak one small protocol: 'p' is echoed; 'd' and an 8-byte
// big-endian count are followed by that many bytes, answered with 'k'.
const (
	// LinkPortOffset places the head's port for the measurement above
	// the Ray port (6379 + 11 = 6390 by default: Ray's own ports, 6379
	// and those it picks, lie elsewhere), so two clusters on one machine
	// with their own Ray ports measure on their own ports too.
	LinkPortOffset = 11
	// LinkPings is how many round trips the latency is the median of.
	LinkPings = 20
	// LinkBytes is the stream the rate is measured over: 32 MiB, 27 ms at
	// 10 Gb/s, 270 ms at 1 Gb/s, so the whole test stays within a
	// container exec's bound even on a slow link.
	LinkBytes = 32 << 20
	// linkMarker starts the client's one line of figures.
	linkMarker = "rigbench-link"
)

// Link is what one measurement found between the head and a worker.
type Link struct {
	// Gbps is the rate in gigabits per second; RTTUS the median round
	// trip in microseconds.
	Gbps, RTTUS float64
}

// Text is the link as people say it: "9.41 Gb/s, 120 µs round trip".
func (l Link) Text() string {
	return fmt.Sprintf("%s Gb/s, %s µs round trip", strconv.FormatFloat(l.Gbps, 'g', 3, 64), strconv.FormatFloat(l.RTTUS, 'f', 0, 64))
}

// LinkPort is the head's port for the measurement of a cluster whose Ray
// head listens on rayPort.
func LinkPort(rayPort int) int {
	if rayPort+LinkPortOffset > 65535 {
		return rayPort - LinkPortOffset
	}
	return rayPort + LinkPortOffset
}

// LinkCommands are the server's command (run in the head's container,
// serving clients workers, then ending, on port) and a client's (run in a
// worker's, toward the head's address): the simulator image's stand-in
// `ray linktest`, or for a real vLLM image a Python program over sockets
// (vLLM images ship Python 3; nothing else is assumed). simulated is
// whether the image is the simulator's.
func LinkCommands(simulated bool, headAddr string, port, clients int) (server []string, client []string) {
	p := strconv.Itoa(port)
	if simulated {
		return []string{"ray", "linktest", "--serve", p, "--clients", strconv.Itoa(clients)},
			[]string{"ray", "linktest", "--address", net.JoinHostPort(headAddr, p), "--bytes", strconv.Itoa(LinkBytes), "--pings", strconv.Itoa(LinkPings)}
	}
	return []string{"python3", "-c", fmt.Sprintf(pyLinkServer, port, clients)},
		[]string{"python3", "-c", fmt.Sprintf(pyLinkClient, headAddr, port, LinkPings, LinkBytes)}
}

// pyLinkServer serves %d clients on port %d in the protocol above.
const pyLinkServer = `import socket,struct
s=socket.create_server(('',%d));s.settimeout(8)
for _ in range(%d):
  c=s.accept()[0];c.settimeout(8)
  while True:
    b=c.recv(1)
    if not b: break
    if b==b'p': c.sendall(b'p'); continue
    h=b''
    while len(h)<8: h+=c.recv(8-len(h))
    n=struct.unpack('>Q',h)[0]
    while n>0:
      x=c.recv(min(n,1<<20))
      if not x: break
      n-=len(x)
    c.sendall(b'k')
  c.close()
`

// pyLinkClient measures toward host %s port %d: %d pings, %d bytes.
const pyLinkClient = `import socket,struct,time,statistics
c=socket.create_connection(('%s',%d),5);c.setsockopt(socket.IPPROTO_TCP,socket.TCP_NODELAY,1)
r=[]
for _ in range(%d):
  t=time.perf_counter();c.sendall(b'p');c.recv(1);r.append(time.perf_counter()-t)
n=%d;buf=bytes(1<<20);t=time.perf_counter();c.sendall(b'd'+struct.pack('>Q',n))
for _ in range(n>>20): c.sendall(buf)
c.recv(1);d=time.perf_counter()-t
print('rigbench-link rtt_us=%%.1f gbps=%%.4f'%%(statistics.median(r)*1e6,n*8/d/1e9))
`

// ParseLink reads a client's output: the line "rigbench-link rtt_us=R
// gbps=G" among whatever else it printed.
func ParseLink(out string) (Link, error) {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != linkMarker {
			continue
		}
		var l Link
		var got int
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
				continue
			}
			switch k {
			case "rtt_us":
				l.RTTUS, got = x, got|1
			case "gbps":
				l.Gbps, got = x, got|2
			}
		}
		if got == 3 {
			return l, nil
		}
		return Link{}, fmt.Errorf("the link test's line %q lacks a round trip or a rate", line)
	}
	return Link{}, fmt.Errorf("the link test printed no figures: %q", firstLine(out))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
