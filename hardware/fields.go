package hardware

import "slices"

// Names of the GPU fields a card may not report, as listed in
// GPU.Unsupported. They are the fields' JSON names, so an export reader can
// match them without a table.
const (
	FieldName              = "name"
	FieldUUID              = "uuid"
	FieldVRAM              = "vram_total_bytes"
	FieldVRAMUsed          = "vram_used_bytes"
	FieldVRAMFree          = "vram_free_bytes"
	FieldComputeCapability = "compute_capability"
	FieldPowerLimit        = "power_limit_w"
	FieldPowerLimitDefault = "power_limit_default_w"
	FieldPowerLimitMax     = "power_limit_max_w"
	FieldPCIeGen           = "pcie_gen"
	FieldPCIeGenMax        = "pcie_gen_max"
	FieldPCIeWidth         = "pcie_width"
	FieldPCIeWidthMax      = "pcie_width_max"
	FieldMemoryBusWidth    = "memory_bus_width_bits"
	FieldMemoryClockMax    = "memory_clock_max_mhz"
	FieldMemoryBandwidth   = "memory_bandwidth_gbs"
)

// NA is how views print a field the card did not report.
const NA = "n/a"

// Reported says whether the card reported field (one of the Field…
// names); views print NA when it did not, rather than a false 0.
func (g GPU) Reported(field string) bool {
	return !slices.Contains(g.Unsupported, field)
}
