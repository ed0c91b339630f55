package hardware

import (
	"encoding/csv"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
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

// NvidiaSMITelemetryFields are the nvidia-smi --query-gpu fields one
// telemetry reading of a rig's GPUs is taken with, in the order
// NvidiaSMIBadArgument is nvidia-smi's exit code for a query it cannot
// answer, an unknown field among them.
const NvidiaSMIBadArgument = 2

// NvidiaSMIReadings is one telemetry reading of every GPU through
// nvidia-smi, for a sampler (probe.WithReadings): a rig's, run in its
// serving container, and on Windows this machine's, where NVML's Go
// binding does not build. run runs one nvidia-smi command line and returns
// its output, or its exit code (-1 when it did not exit) and error. The
// card's energy counter (NvidiaSMIEnergyField) is asked for while
// nvidia-smi answers it; one that refuses the field (older drivers exit
// with NvidiaSMIBadArgument) is asked without it from then on, and the
// cells' energy then comes from the power samples. energy reports whether
// the counter is still asked for. read is safe to call from one goroutine
// while energy is called from another.
func NvidiaSMIReadings(run func(args []string) (string, int, error)) (read func() ([]GPUSample, error), energy func() bool) {
	var noEnergy atomic.Bool
	read = func() ([]GPUSample, error) {
		for {
			withEnergy := !noEnergy.Load()
			out, code, err := run(NvidiaSMITelemetryArgs(withEnergy))
			if withEnergy && err != nil && code == NvidiaSMIBadArgument {
				noEnergy.Store(true) // this nvidia-smi does not know energy.consumed
				continue
			}
			if err != nil {
				return nil, err
			}
			return ParseNvidiaSMISamples(out, withEnergy)
		}
	}
	return read, func() bool { return !noEnergy.Load() }
}

// ParseNvidiaSMISamples reads them: the same quantities the NVML sampler
// reads (GPUSample), so a remote rig's cells carry the samples a local
// one's do. clocks_throttle_reasons.active is the clocks-event mask
// (nvidia-smi prints it in hex, "0x0000000000000004"), the name every
// driver since R450 answers to (R535 added clocks_event_reasons.active
// and kept the old one).
var NvidiaSMITelemetryFields = []string{
	"index", "power.draw", "clocks.sm", "clocks.mem", "temperature.gpu",
	"utilization.gpu", "utilization.memory", "memory.used", "clocks_throttle_reasons.active",
}

// NvidiaSMIEnergyField is the card's energy counter as nvidia-smi names
// it: millijoules since the driver was loaded, NVML's
// nvmlDeviceGetTotalEnergyConsumption. Not every nvidia-smi knows the
// field (it then refuses the whole query, exit code 2), and cards before
// Volta have no counter ("[N/A]"), so a reading asks for it only while it
// is answered.
const NvidiaSMIEnergyField = "energy.consumed"

// NvidiaSMITelemetryArgs is the nvidia-smi command line of one telemetry
// reading of every GPU, one CSV line each, without units; withEnergy adds
// NvidiaSMIEnergyField at the end.
func NvidiaSMITelemetryArgs(withEnergy bool) []string {
	fields := NvidiaSMITelemetryFields
	if withEnergy {
		fields = append(slices.Clone(fields), NvidiaSMIEnergyField)
	}
	return []string{"nvidia-smi", "--query-gpu=" + strings.Join(fields, ","), "--format=csv,noheader,nounits"}
}

// ParseNvidiaSMISamples reads the output of NvidiaSMITelemetryArgs (with
// the same withEnergy) into one sample per GPU, T left 0, as the NVML
// sampler's read does. A value nvidia-smi does not have ("[N/A]") stays
// 0, as an NVML reading the card does not report does (0 W gives no
// energy figure); EnergyJ stays 0 without a counter. nvidia-smi prints
// MiB, W, MHz, °C and percent; the energy counter in mJ. The output is
// outside input: a malformed line is an error, never a panic.
func ParseNvidiaSMISamples(out string, withEnergy bool) ([]GPUSample, error) {
	want := len(NvidiaSMITelemetryFields)
	if withEnergy {
		want++
	}
	r := csv.NewReader(strings.NewReader(out))
	r.TrimLeadingSpace = true
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("reading nvidia-smi's output: %w", err)
	}
	var samples []GPUSample
	for n, rec := range recs {
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != want {
			return nil, fmt.Errorf("nvidia-smi's line %d has %d fields, not the %d asked for", n+1, len(rec), want)
		}
		s, err := sampleFromSMI(rec)
		if err != nil {
			return nil, fmt.Errorf("nvidia-smi's line %d: %w", n+1, err)
		}
		samples = append(samples, s)
	}
	if len(samples) == 0 {
		return nil, errors.New("nvidia-smi listed no GPU")
	}
	return samples, nil
}

// sampleFromSMI reads one record in NvidiaSMITelemetryFields order, with
// the energy counter after them when the record has it.
func sampleFromSMI(rec []string) (GPUSample, error) {
	var s GPUSample
	v := func(i int) (string, bool) {
		t := strings.TrimSpace(rec[i])
		if t == "" || strings.HasPrefix(t, "[") {
			return "", false
		}
		return t, true
	}
	idx, ok := v(0)
	n, err := strconv.Atoi(idx)
	if !ok || err != nil || n < 0 {
		return GPUSample{}, fmt.Errorf("index %q is not a GPU number", rec[0])
	}
	s.GPU = n
	field := func(i int) string {
		if i < len(NvidiaSMITelemetryFields) {
			return NvidiaSMITelemetryFields[i]
		}
		return NvidiaSMIEnergyField
	}
	num := func(i int, set func(float64)) error {
		t, ok := v(i)
		if !ok {
			return nil
		}
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || f < 0 || f > 1e15 {
			return fmt.Errorf("%s %q is not a number", field(i), t)
		}
		set(f)
		return nil
	}
	const mib = 1 << 20
	sets := []func(float64){
		1: func(x float64) { s.PowerW = x },
		2: func(x float64) { s.SMClockMHz = x },
		3: func(x float64) { s.MemClockMHz = x },
		4: func(x float64) { s.TempC = x },
		5: func(x float64) { s.UtilGPU = x },
		6: func(x float64) { s.UtilMem = x },
		7: func(x float64) { s.VRAMUsedBytes = uint64(x) * mib },
	}
	for i := 1; i < len(sets); i++ {
		if err := num(i, sets[i]); err != nil {
			return GPUSample{}, err
		}
	}
	if t, ok := v(8); ok {
		mask, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(t), "0x"), 16, 64)
		if err != nil {
			return GPUSample{}, fmt.Errorf("%s %q is not a hex mask", field(8), t)
		}
		s.Throttle = ThrottleReasons(mask)
	}
	if len(rec) > len(NvidiaSMITelemetryFields) {
		if err := num(len(NvidiaSMITelemetryFields), func(x float64) { s.EnergyJ = x / 1000 }); err != nil {
			return GPUSample{}, err
		}
	}
	return s, nil
}
