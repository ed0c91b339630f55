package sim

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// RayName is the name under which the simulator binary answers as Ray's
// command line: the simulator image links it as /usr/bin/ray.
const RayName = "ray"

// RayClusterFile is where Ray's head writes its address for the processes
// of its node (ray.init(address="auto") reads it), under Ray's temporary
// folder (RAY_TMPDIR, /tmp/ray when unset); the stand-in does the same,
// and the simulator's `vllm serve` reads it.
const RayClusterFile = "ray_current_cluster"

// rayClusterPath is RayClusterFile's path under the node's Ray folder.
func rayClusterPath(getenv func(string) string) string {
	dir := getenv("RAY_TMPDIR")
	if dir == "" {
		dir = "/tmp/ray"
	}
	return filepath.Join(dir, RayClusterFile)
}

// RayWaitEnv is Ray's setting of how long a node retries the head before
// giving up (seconds); the stand-in honours it, 10 s when unset.
const RayWaitEnv = "RAY_gcs_rpc_server_reconnect_timeout_s"

// rayArgs is a `ray start` command line.
type rayArgs struct {
	head    bool
	port    int
	address string // the head's host:port, for a worker
	nodeIP  string
	gpus    int // -1: the profile's
	block   bool
}

// parseRayStart reads `ray start`'s flags (`--flag value` or `--flag=value`);
// flags the stand-in does not model (--dashboard-host, --disable-usage-stats,
// --num-cpus, …) are accepted so real command lines run.
func parseRayStart(args []string) (rayArgs, error) {
	a := rayArgs{port: RayDefaultPort, gpus: -1}
	for i := 0; i < len(args); i++ {
		name, val, eq := strings.Cut(args[i], "=")
		value := func() (string, error) {
			if eq {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("option %s requires an argument", name)
			}
			i++
			return args[i], nil
		}
		var err error
		switch name {
		case "--head":
			a.head = true
		case "--block":
			a.block = true
		case "--disable-usage-stats", "--include-dashboard":
			if name == "--include-dashboard" && !eq {
				_, err = value()
			}
		case "--port":
			var v string
			if v, err = value(); err == nil {
				a.port, err = strconv.Atoi(v)
				if err != nil || a.port < 0 || a.port > 65535 {
					err = fmt.Errorf("invalid value for '--port': '%s' is not a valid port", v)
				}
			}
		case "--address":
			a.address, err = value()
		case "--node-ip-address":
			a.nodeIP, err = value()
		case "--num-gpus":
			var v string
			if v, err = value(); err == nil {
				a.gpus, err = strconv.Atoi(v)
				if err != nil || a.gpus < 0 {
					err = fmt.Errorf("invalid value for '--num-gpus': '%s' is not a valid integer", v)
				}
			}
		case "--dashboard-host", "--dashboard-port", "--num-cpus", "--resources", "--object-store-memory", "--temp-dir":
			_, err = value()
		default:
			err = fmt.Errorf("no such option: %s", name)
		}
		if err != nil {
			return a, err
		}
	}
	if a.head == (a.address != "") {
		return a, fmt.Errorf("give either --head or --address=HEAD:PORT")
	}
	return a, nil
}

// Ray is the stand-in `ray` command: `ray start --head …`, `ray start
// --address=HEAD:PORT …`, `ray status [--address …]` and `--version`. It
// runs in the foreground until ctx ends (a container's `--block`), and
// returns the exit code.
func Ray(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if getenv == nil {
		getenv = os.Getenv
	}
	switch {
	case len(args) == 1 && (args[0] == "--version" || args[0] == "version"):
		fmt.Fprintf(stdout, "ray, version %s %s\n", RayStandInVersion, RayStandInNote)
		return 0
	case len(args) >= 1 && args[0] == "linktest":
		return rayLinkTest(ctx, args[1:], getenv, stdout, stderr)
	case len(args) >= 1 && args[0] == "status":
		return rayStatusCmd(ctx, args[1:], getenv, stdout, stderr)
	case len(args) >= 1 && args[0] == "start":
		a, err := parseRayStart(args[1:])
		if err != nil {
			fmt.Fprintf(stderr, "Usage: ray start [OPTIONS]\nTry 'ray start --help' for help.\n\nError: %v\n", err)
			return 2
		}
		return rayStart(ctx, a, getenv, stdout, stderr)
	}
	fmt.Fprintf(stderr, "Usage: ray [OPTIONS] COMMAND [ARGS]...\n%s: only `ray start`, `ray status`, `ray linktest` (its own: a link test) and `ray --version`\n", RayStandInNote)
	return 2
}

// nodeGPUs is the GPUs a node offers: --num-gpus, else the cards of the
// profile the stand-in nvidia-smi describes.
func nodeGPUs(a rayArgs, getenv func(string) string) (int, error) {
	if a.gpus >= 0 {
		return a.gpus, nil
	}
	if name := getenv(ProfileEnv); name != "" {
		p, err := ProfileByName(name)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", ProfileEnv, err)
		}
		return p.Cards(), nil
	}
	d := DefaultProfile()
	return d.Cards(), nil
}

func rayStart(ctx context.Context, a rayArgs, getenv func(string) string, stdout, stderr io.Writer) int {
	gpus, err := nodeGPUs(a, getenv)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	ip := a.nodeIP
	if ip == "" {
		ip = getenv("VLLM_HOST_IP")
	}
	if a.head {
		if ip == "" {
			ip = "127.0.0.1"
		}
		h, err := StartRayHead(net.JoinHostPort("0.0.0.0", strconv.Itoa(a.port)), RayNode{Address: ip, GPUs: gpus}, nil)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		defer h.Close()
		_, port, _ := net.SplitHostPort(h.Addr())
		addr := net.JoinHostPort(ip, port)
		// The head's own processes (ray status, vllm serve) reach it on
		// the loopback, whatever address it gives the other nodes.
		writeClusterFile(getenv, net.JoinHostPort("127.0.0.1", port))
		fmt.Fprintf(stdout, "Local node IP: %s\n%s\n--------------------\nRay runtime started.\n--------------------\n\n"+
			"Next steps\n  To add another node to this Ray cluster, run\n    ray start --address='%s'\n", ip, RayStandInNote, addr)
		<-ctx.Done()
		return 0
	}
	wait := 10 * time.Second
	if v, err := strconv.ParseFloat(getenv(RayWaitEnv), 64); err == nil && v >= 0 {
		wait = time.Duration(v * float64(time.Second))
	}
	err = JoinRay(ctx, a.address, RayNode{Address: ip, GPUs: gpus}, wait, func(id string) {
		writeClusterFile(getenv, a.address)
		fmt.Fprintf(stdout, "Local node IP: %s\n%s\n--------------------\nRay runtime started.\n--------------------\n", ip, RayStandInNote)
	})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// writeClusterFile records the head's address for the node's processes;
// a node that cannot write it (a read-only file system) still runs, and
// `vllm serve` then needs RAY_ADDRESS.
func writeClusterFile(getenv func(string) string, addr string) {
	p := rayClusterPath(getenv)
	if os.MkdirAll(filepath.Dir(p), 0o755) == nil {
		os.WriteFile(p, []byte(addr+"\n"), 0o644)
	}
}

// RayAddressFrom is the head a process of this node talks to: RAY_ADDRESS,
// else the address the node's `ray start` wrote, else "".
func RayAddressFrom(getenv func(string) string) string {
	if a := strings.TrimSpace(getenv("RAY_ADDRESS")); a != "" && a != "auto" {
		return a
	}
	b, err := os.ReadFile(rayClusterPath(getenv))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// rayStatusCmd prints the nodes as `ray status` does: the alive ones under
// "Active", the dead under "Recent failures", the GPUs in use of all.
func rayStatusCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	addr := RayAddressFrom(getenv)
	for i := 0; i < len(args); i++ {
		if v, ok := strings.CutPrefix(args[i], "--address="); ok {
			addr = v
		} else if args[i] == "--address" && i+1 < len(args) {
			i++
			addr = args[i]
		}
	}
	if addr == "" {
		fmt.Fprintln(stderr, ErrNoRayCluster)
		return 1
	}
	nodes, err := RayStatus(ctx, addr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	WriteRayStatus(stdout, nodes, time.Now())
	return 0
}

// WriteRayStatus writes nodes in `ray status`'s layout, each node's
// address beside its ID (Ray's own prints only the ID) and the stand-in's
// note last.
func WriteRayStatus(w io.Writer, nodes []RayNode, now time.Time) {
	rule := strings.Repeat("-", 63)
	fmt.Fprintf(w, "======== Autoscaler status: %s ========\nNode status\n%s\nActive:\n", now.Format("2006-01-02 15:04:05.000000"), rule)
	gpus, failed := 0, 0
	for _, n := range nodes {
		if n.Alive {
			fmt.Fprintf(w, " 1 %s (%s)\n", n.ID, n.Address)
			gpus += n.GPUs
		}
	}
	fmt.Fprint(w, "Pending:\n (no pending nodes)\nRecent failures:\n")
	for _, n := range nodes {
		if !n.Alive {
			fmt.Fprintf(w, " %s (%s)\n", n.ID, n.Address)
			failed++
		}
	}
	if failed == 0 {
		fmt.Fprint(w, " (no failures)\n")
	}
	fmt.Fprintf(w, "\nResources\n%s\nUsage:\n 0.0/%d.0 GPU\n\nDemands:\n (no resource demands)\n%s\n", rule, gpus, RayStandInNote)
}
