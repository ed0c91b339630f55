package sim

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// NvidiaSMIName is the name under which the simulator binary answers as
// nvidia-smi: the simulator image links it as /usr/bin/nvidia-smi, so
// hardware detection on a rig runs the same `nvidia-smi --query-gpu=…`
// path against the simulator as against a real card.
const NvidiaSMIName = "nvidia-smi"

// ProfileEnv names the profile the stand-in nvidia-smi describes
// (ProfileByName); unset, the default profile.
const ProfileEnv = "RIGBENCH_SIM_PROFILE"

// smiCard is what the stand-in reports beyond the profile's name and
// memory: the board facts of the RTX 3060 12 GB the default profile
// imitates (NVIDIA's specifications: 170 W board power, PCIe 4.0 x16,
// compute capability 8.6, 15 Gbps GDDR6 = 7501 MHz memory clock).
var smiCard = struct {
	powerW, powerMaxW float64
	pcieGen, width    int
	computeCap        string
	memClockMHz       int
	driver            string
}{170, 170, 4, 16, "8.6", 7501, "575.64.03-sim"}

// NvidiaSMI answers the queries RigBench (and people) ask of nvidia-smi,
// from the profile: `--query-gpu=FIELD,… --format=csv[,noheader][,nounits]`
// and `-L`. Anything else gets nvidia-smi's own complaint and exit code 2
// (a real nvidia-smi reports an unknown field the same way). It returns
// the exit code.
func NvidiaSMI(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if getenv == nil {
		getenv = os.Getenv
	}
	p := DefaultProfile()
	if name := getenv(ProfileEnv); name != "" {
		q, err := ProfileByName(name)
		if err != nil {
			fmt.Fprintf(stderr, "rigbench-sim: %s: %v\n", ProfileEnv, err)
			return 2
		}
		p = q
	}
	return nvidiaSMIFor(p, args, stdout, stderr)
}

// nvidiaSMIFor is NvidiaSMI for profile p.
func nvidiaSMIFor(p Profile, args []string, stdout, stderr io.Writer) int {
	if len(args) >= 2 && args[0] == "topo" {
		return smiTopo(p, args[1:], stdout, stderr)
	}
	var query []string
	header, units := true, true
	formatted := false
	for _, a := range args {
		switch {
		case a == "-L" || a == "--list-gpus":
			for i := range p.Cards() {
				fmt.Fprintf(stdout, "GPU %d: %s (UUID: %s)\n", i, p.GPUName, smiUUID(p, i))
			}
			return 0
		case strings.HasPrefix(a, "--query-gpu="):
			query = strings.Split(strings.TrimPrefix(a, "--query-gpu="), ",")
		case strings.HasPrefix(a, "--format="):
			formatted = true
			for _, f := range strings.Split(strings.TrimPrefix(a, "--format="), ",") {
				switch f {
				case "csv":
				case "noheader":
					header = false
				case "nounits":
					units = false
				default:
					fmt.Fprintf(stderr, "%q is not a valid format option.\n", f)
					return 2
				}
			}
		default:
			fmt.Fprintf(stderr, "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n")
			return 2
		}
	}
	if len(query) == 0 || !formatted {
		fmt.Fprintf(stderr, "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n")
		return 2
	}
	now := smiNow()
	var heads []string
	lines := make([][]string, p.Cards())
	for _, f := range query {
		f = strings.TrimSpace(f)
		h := f
		for i := range lines {
			v, unit, ok := smiValue(p, i, f, now)
			if !ok {
				fmt.Fprintf(stderr, "Field \"%s\" is not a valid field to query.\n", f)
				return 2
			}
			if unit != "" {
				h = f + " [" + unit + "]"
				if units {
					v += " " + unit
				}
			}
			lines[i] = append(lines[i], v)
		}
		heads = append(heads, h)
	}
	if header {
		fmt.Fprintln(stdout, strings.Join(heads, ", "))
	}
	for _, l := range lines {
		fmt.Fprintln(stdout, strings.Join(l, ", "))
	}
	return 0
}

// smiNow is the stand-in's clock, which its energy counter runs on.
var smiNow = time.Now

// smiLoad is what the stand-in reports for a card at work: it is asked
// from a separate process (docker exec), which cannot see the simulated
// server's steps, so it describes one steady decode, as a benchmark
// window is: 85% of the power limit, 97% utilisation, the card's boost
// and memory clocks, 66 °C, held by its power cap (clocks-event bit 0x4).
// Its energy counter runs at that draw from smiEpoch, so ΔE/Δt over a
// window is the reported power, as on a real card at steady load.
var smiLoad = struct {
	powerShare, utilGPU, utilMem, tempC float64
	smClockMHz                          int
	throttleMask                        string
}{0.85, 97, 45, 66, 1777, "0x0000000000000004"}

// smiEpoch is when the stand-in's "driver" was loaded.
var smiEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// smiValue is one query field's value and unit for simulated card i at
// time now.
func smiValue(p Profile, i int, field string, now time.Time) (value, unit string, ok bool) {
	mib := int64(p.GPUMemoryGiB * 1024)
	used := int64(0)
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	draw := smiLoad.powerShare * smiCard.powerW
	switch field {
	case "index":
		return strconv.Itoa(i), "", true
	case "name", "gpu_name":
		return p.GPUName, "", true
	case "uuid", "gpu_uuid":
		return smiUUID(p, i), "", true
	case "power.draw":
		return f(draw), "W", true
	case "clocks.sm", "clocks.current.sm":
		return strconv.Itoa(smiLoad.smClockMHz), "MHz", true
	case "clocks.mem", "clocks.current.memory":
		return strconv.Itoa(smiCard.memClockMHz), "MHz", true
	case "temperature.gpu":
		return f(smiLoad.tempC), "", true
	case "utilization.gpu":
		return f(smiLoad.utilGPU), "%", true
	case "utilization.memory":
		return f(smiLoad.utilMem), "%", true
	case "clocks_throttle_reasons.active", "clocks_event_reasons.active":
		return smiLoad.throttleMask, "", true
	case "energy.consumed":
		return strconv.FormatInt(int64(draw*now.Sub(smiEpoch).Seconds()*1000), 10), "mJ", true
	case "memory.total":
		return strconv.FormatInt(mib, 10), "MiB", true
	case "memory.used":
		return strconv.FormatInt(used, 10), "MiB", true
	case "memory.free":
		return strconv.FormatInt(mib-used, 10), "MiB", true
	case "driver_version":
		return smiCard.driver, "", true
	case "compute_cap":
		return smiCard.computeCap, "", true
	case "power.limit", "power.default_limit", "enforced.power.limit":
		return f(smiCard.powerW), "W", true
	case "power.max_limit":
		return f(smiCard.powerMaxW), "W", true
	case "pcie.link.gen.current", "pcie.link.gen.max":
		return strconv.Itoa(smiCard.pcieGen), "", true
	case "pcie.link.width.current", "pcie.link.width.max":
		return strconv.Itoa(smiCard.width), "", true
	case "clocks.max.memory":
		return strconv.Itoa(smiCard.memClockMHz), "MHz", true
	}
	return "", "", false
}

// smiUUID is a stable, obviously simulated GPU UUID for the profile's
// card i.
func smiUUID(p Profile, i int) string {
	h := uint32(2166136261)
	for _, b := range []byte(p.Name) {
		h = (h ^ uint32(b)) * 16777619
	}
	return fmt.Sprintf("GPU-5151%04x-0000-0000-%04x-%012x", h>>16, i, h)
}

// smiTopo answers `nvidia-smi topo -m` and `topo -p2p r` for the
// profile's cards, in nvidia-smi's layout: the link matrix (NV4 between
// NVLinked cards, PHB through the PCIe host bridge) and the peer-to-peer
// read matrix (OK over NVLink; GeForce cards over PCIe have P2P turned
// off by the driver, which nvidia-smi reports as NS).
func smiTopo(p Profile, args []string, stdout, stderr io.Writer) int {
	n := p.Cards()
	var cell string
	var legend []string
	switch {
	case len(args) == 1 && args[0] == "-m":
		cell = "PHB"
		if p.Link == LinkNVLink {
			cell = "NV4"
		}
		legend = []string{"X    = Self", "PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)",
			"NV#  = Connection traversing a bonded set of # NVLinks"}
	case len(args) == 2 && args[0] == "-p2p" && args[1] == "r":
		cell = "NS"
		if p.Link == LinkNVLink {
			cell = "OK"
		}
		legend = []string{"X    = Self", "OK   = Status Ok", "NS   = Not supported"}
	default:
		fmt.Fprintf(stderr, "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n")
		return 2
	}
	var b strings.Builder
	b.WriteString("\t")
	for j := range n {
		fmt.Fprintf(&b, "GPU%d\t", j)
	}
	if args[0] == "-m" {
		b.WriteString("CPU Affinity\tNUMA Affinity\tGPU NUMA ID")
	}
	b.WriteString("\n")
	for i := range n {
		fmt.Fprintf(&b, "GPU%d\t", i)
		for j := range n {
			if i == j {
				b.WriteString(" X \t")
			} else {
				b.WriteString(cell + "\t")
			}
		}
		if args[0] == "-m" {
			b.WriteString("0-15\t0\t\tN/A")
		}
		b.WriteString("\n")
	}
	b.WriteString("\nLegend:\n\n")
	for _, l := range legend {
		b.WriteString("  " + l + "\n")
	}
	fmt.Fprint(stdout, b.String())
	return 0
}
