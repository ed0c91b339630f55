package sim

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
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
	var query []string
	header, units := true, true
	formatted := false
	for _, a := range args {
		switch {
		case a == "-L" || a == "--list-gpus":
			fmt.Fprintf(stdout, "GPU 0: %s (UUID: %s)\n", p.GPUName, smiUUID(p))
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
	var heads, vals []string
	for _, f := range query {
		f = strings.TrimSpace(f)
		v, unit, ok := smiValue(p, f)
		if !ok {
			fmt.Fprintf(stderr, "Field \"%s\" is not a valid field to query.\n", f)
			return 2
		}
		h := f
		if unit != "" {
			h += " [" + unit + "]"
			if units {
				v += " " + unit
			}
		}
		heads, vals = append(heads, h), append(vals, v)
	}
	if header {
		fmt.Fprintln(stdout, strings.Join(heads, ", "))
	}
	fmt.Fprintln(stdout, strings.Join(vals, ", "))
	return 0
}

// smiValue is one query field's value and unit for the simulated card.
func smiValue(p Profile, field string) (value, unit string, ok bool) {
	mib := int64(p.GPUMemoryGiB * 1024)
	used := int64(0)
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	switch field {
	case "index":
		return "0", "", true
	case "name", "gpu_name":
		return p.GPUName, "", true
	case "uuid", "gpu_uuid":
		return smiUUID(p), "", true
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

// smiUUID is a stable, obviously simulated GPU UUID for the profile.
func smiUUID(p Profile) string {
	h := uint32(2166136261)
	for _, b := range []byte(p.Name) {
		h = (h ^ uint32(b)) * 16777619
	}
	return fmt.Sprintf("GPU-5151%04x-0000-0000-0000-%012x", h>>16, h)
}
