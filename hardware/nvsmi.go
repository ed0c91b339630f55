package hardware

import (
	"encoding/csv"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// NvidiaSMIFields are the nvidia-smi --query-gpu fields a rig's GPUs are
// read with, in the order NvidiaSMIArgs asks for them. A remote rig is
// read through its Docker (a short-lived container with the GPUs
// attached), where NVML is not at hand but nvidia-smi is: the NVIDIA
// Container Toolkit mounts it into every GPU container.
var NvidiaSMIFields = []string{
	"index", "name", "uuid", "memory.total", "memory.used", "memory.free",
	"driver_version", "compute_cap", "power.limit", "power.default_limit", "power.max_limit",
	"pcie.link.gen.current", "pcie.link.gen.max", "pcie.link.width.current", "pcie.link.width.max",
	"clocks.max.memory",
}

// NvidiaSMIArgs is the nvidia-smi command line that prints
// NvidiaSMIFields for every GPU, one CSV line each, without units.
func NvidiaSMIArgs() []string {
	return []string{"nvidia-smi", "--query-gpu=" + strings.Join(NvidiaSMIFields, ","), "--format=csv,noheader,nounits"}
}

// ParseNvidiaSMI reads the output of NvidiaSMIArgs into GPUs and the
// driver version. Values nvidia-smi does not have ("[N/A]", "[Not
// Supported]") leave the field zero and list it in Unsupported, as NVML
// detection does; so do the fields nvidia-smi cannot be asked (the memory
// bus width, hence the peak bandwidth). The output is outside input (any
// image's nvidia-smi): a malformed line is an error, never a panic.
func ParseNvidiaSMI(out string) ([]GPU, string, error) {
	r := csv.NewReader(strings.NewReader(out))
	r.TrimLeadingSpace = true
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, "", fmt.Errorf("reading nvidia-smi's output: %w", err)
	}
	var (
		gpus   []GPU
		driver string
	)
	for n, rec := range recs {
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != len(NvidiaSMIFields) {
			return nil, "", fmt.Errorf("nvidia-smi's line %d has %d fields, not the %d asked for", n+1, len(rec), len(NvidiaSMIFields))
		}
		g, d, err := gpuFromSMI(rec)
		if err != nil {
			return nil, "", fmt.Errorf("nvidia-smi's line %d: %w", n+1, err)
		}
		if driver == "" {
			driver = d
		}
		gpus = append(gpus, g)
	}
	if len(gpus) == 0 {
		return nil, "", errors.New("nvidia-smi listed no GPU")
	}
	return gpus, driver, nil
}

// gpuFromSMI reads one record in NvidiaSMIFields order.
func gpuFromSMI(rec []string) (GPU, string, error) {
	var g GPU
	v := func(i int) (string, bool) {
		s := strings.TrimSpace(rec[i])
		if s == "" || strings.HasPrefix(s, "[") { // [N/A], [Not Supported], [Unknown Error]
			return "", false
		}
		return s, true
	}
	miss := func(field string) { g.Unsupported = append(g.Unsupported, field) }
	idx, ok := v(0)
	n, err := strconv.Atoi(idx)
	if !ok || err != nil || n < 0 {
		return GPU{}, "", fmt.Errorf("index %q is not a GPU number", rec[0])
	}
	g.Index = n
	text := func(i int, field string, dst *string) {
		if s, ok := v(i); ok {
			*dst = s
		} else {
			miss(field)
		}
	}
	num := func(i int, field string, set func(float64)) error {
		s, ok := v(i)
		if !ok {
			miss(field)
			return nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 || f > 1e12 {
			return fmt.Errorf("%s %q is not a number", NvidiaSMIFields[i], s)
		}
		set(f)
		return nil
	}
	const mib = 1 << 20
	text(1, FieldName, &g.Name)
	text(2, FieldUUID, &g.UUID)
	var driver string
	if s, ok := v(6); ok {
		driver = s
	}
	text(7, FieldComputeCapability, &g.ComputeCapability)
	for _, f := range []struct {
		i     int
		field string
		set   func(float64)
	}{
		{3, FieldVRAM, func(x float64) { g.VRAMTotalBytes = uint64(x) * mib }},
		{4, FieldVRAMUsed, func(x float64) { g.VRAMUsedBytes = uint64(x) * mib }},
		{5, FieldVRAMFree, func(x float64) { g.VRAMFreeBytes = uint64(x) * mib }},
		{8, FieldPowerLimit, func(x float64) { g.PowerLimitW = x }},
		{9, FieldPowerLimitDefault, func(x float64) { g.PowerLimitDefaultW = x }},
		{10, FieldPowerLimitMax, func(x float64) { g.PowerLimitMaxW = x }},
		{11, FieldPCIeGen, func(x float64) { g.PCIeGen = int(x) }},
		{12, FieldPCIeGenMax, func(x float64) { g.PCIeGenMax = int(x) }},
		{13, FieldPCIeWidth, func(x float64) { g.PCIeWidth = int(x) }},
		{14, FieldPCIeWidthMax, func(x float64) { g.PCIeWidthMax = int(x) }},
		{15, FieldMemoryClockMax, func(x float64) { g.MemoryClockMaxMHz = int(x) }},
	} {
		if err := num(f.i, f.field, f.set); err != nil {
			return GPU{}, "", err
		}
	}
	miss(FieldMemoryBusWidth)
	miss(FieldMemoryBandwidth)
	return g, driver, nil
}
