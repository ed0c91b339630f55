package hardware

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// GPULink is how two GPUs of a machine reach each other: the path their
// traffic takes (the tensor-parallel all-reduces of a server spread over
// both) and whether they can read each other's memory directly (P2P).
type GPULink struct {
	// A and B are the GPUs' indices, A < B.
	A int `json:"a"`
	B int `json:"b"`
	// Path is one of the Path* names.
	Path string `json:"path"`
	// Code is nvidia-smi's name of the path ("NV4", "PHB", "SYS", …), for
	// those who know `nvidia-smi topo -m`.
	Code string `json:"code"`
	// NVLinks is the number of bonded NVLinks (Path PathNVLink).
	NVLinks int `json:"nvlinks,omitempty"`
	// P2P is P2POK, or why peer-to-peer reads do not work; "" when not
	// known.
	P2P string `json:"p2p,omitempty"`
}

// Paths between two GPUs, nearest first: nvidia-smi topo -m's legend and
// NVML's nvmlGpuTopologyLevel_t name the same levels.
const (
	PathSameBoard    = "same board"            // NVML TOPOLOGY_INTERNAL (a dual-GPU card)
	PathNVLink       = "NVLink"                // NV#
	PathPCIeSwitch   = "PCIe switch"           // PIX: at most one PCIe bridge
	PathPCIeSwitches = "PCIe switches"         // PXB: several PCIe bridges, no host bridge
	PathHostBridge   = "PCIe host bridge"      // PHB: through the CPU's PCIe host bridge
	PathNUMANode     = "host bridges, one CPU" // NODE: between host bridges of one NUMA node
	PathSystem       = "CPU interconnect"      // SYS: across NUMA nodes (QPI/UPI, Infinity Fabric)
	PathUnknown      = "unknown"               // a code this version does not know
	P2POK            = "ok"                    // peer-to-peer reads work
	p2pNotSupported  = "not supported"         // NS
	p2pChipset       = "not supported by the chipset"
)

// topoCodes maps nvidia-smi topo -m's codes to paths.
var topoCodes = map[string]string{
	"PIX": PathPCIeSwitch, "PXB": PathPCIeSwitches, "PHB": PathHostBridge,
	"NODE": PathNUMANode, "SYS": PathSystem, "SOC": PathSystem,
}

// p2pCodes maps nvidia-smi topo -p2p r's codes to P2P.
var p2pCodes = map[string]string{
	"OK": P2POK, "CNS": p2pChipset, "GNS": "not supported by the GPU",
	"TNS": "not supported by the topology", "NS": p2pNotSupported, "U": "unknown",
}

// PathOfCode is the path and NVLink count of one nvidia-smi topo -m code.
func PathOfCode(code string) (path string, nvlinks int) {
	if n, ok := strings.CutPrefix(code, "NV"); ok {
		if k, err := strconv.Atoi(n); err == nil && k > 0 {
			return PathNVLink, k
		}
	}
	if p, ok := topoCodes[code]; ok {
		return p, 0
	}
	return PathUnknown, 0
}

// P2PText is what one nvidia-smi topo -p2p code means, "" for one this
// version does not know.
func P2PText(code string) string { return p2pCodes[code] }

// NvidiaSMITopoArgs and NvidiaSMIP2PArgs are the nvidia-smi command lines
// of the link matrix and of the peer-to-peer read matrix.
func NvidiaSMITopoArgs() []string { return []string{"nvidia-smi", "topo", "-m"} }

// NvidiaSMIP2PArgs: see NvidiaSMITopoArgs.
func NvidiaSMIP2PArgs() []string { return []string{"nvidia-smi", "topo", "-p2p", "r"} }

// ansi matches the terminal escapes nvidia-smi puts in its header.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")

// parseGPUMatrix reads the GPU × GPU part of an nvidia-smi topo matrix:
// the header line naming GPU0…GPUn, then one row per GPU. Columns beyond
// the GPUs (NICs, CPU and NUMA affinity) and the legend are skipped. It
// returns the cell of every pair i < j.
func parseGPUMatrix(out string) (map[[2]int]string, error) {
	var gpus []int // GPU index of each header column
	cells := map[[2]int]string{}
	for _, line := range strings.Split(ansi.ReplaceAllString(out, ""), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if gpus == nil {
			if !strings.HasPrefix(f[0], "GPU") {
				continue
			}
			for _, h := range f {
				n, ok := gpuColumn(h)
				if !ok {
					break
				}
				gpus = append(gpus, n)
			}
			continue
		}
		row, ok := gpuColumn(f[0])
		if !ok {
			if len(cells) > 0 || strings.HasPrefix(f[0], "Legend") {
				break
			}
			continue
		}
		if len(f) < 1+len(gpus) {
			return nil, fmt.Errorf("nvidia-smi's row of GPU%d has %d columns, not the %d GPUs of its header", row, len(f)-1, len(gpus))
		}
		for k, col := range gpus {
			if row < col {
				cells[[2]int{row, col}] = f[1+k]
			}
		}
	}
	if gpus == nil {
		return nil, errors.New("nvidia-smi printed no GPU matrix")
	}
	return cells, nil
}

// gpuColumn reads "GPU3" as 3.
func gpuColumn(s string) (int, bool) {
	n, ok := strings.CutPrefix(s, "GPU")
	if !ok {
		return 0, false
	}
	k, err := strconv.Atoi(n)
	return k, err == nil && k >= 0 && k < 1<<16
}

// ParseNvidiaSMITopo reads `nvidia-smi topo -m` and, when p2p is not
// empty, `nvidia-smi topo -p2p r` into the links between every pair of
// GPUs, in (A, B) order. The output is outside input: a malformed matrix
// is an error, never a panic.
func ParseNvidiaSMITopo(topo, p2p string) ([]GPULink, error) {
	cells, err := parseGPUMatrix(topo)
	if err != nil {
		return nil, err
	}
	var reads map[[2]int]string
	if p2p != "" {
		if reads, err = parseGPUMatrix(p2p); err != nil {
			return nil, fmt.Errorf("the peer-to-peer matrix: %w", err)
		}
	}
	links := make([]GPULink, 0, len(cells))
	for pair, code := range cells {
		path, nv := PathOfCode(code)
		links = append(links, GPULink{A: pair[0], B: pair[1], Path: path, Code: code, NVLinks: nv, P2P: P2PText(reads[pair])})
	}
	SortLinks(links)
	return links, nil
}

// SortLinks orders links by A, then B.
func SortLinks(links []GPULink) {
	slices.SortFunc(links, func(x, y GPULink) int { return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B)) })
}

// LinkText is one link in words: "GPU 0 ↔ GPU 1: NVLink ×4 (NV4), P2P ok".
func LinkText(l GPULink) string {
	s := fmt.Sprintf("GPU %d ↔ GPU %d: %s", l.A, l.B, PathText(l))
	if l.P2P != "" {
		s += ", P2P " + l.P2P
	}
	return s
}

// PathText is a link's path in words: "NVLink ×4 (NV4)", "PCIe host
// bridge (PHB)".
func PathText(l GPULink) string {
	s := l.Path
	if l.NVLinks > 0 {
		s += fmt.Sprintf(" ×%d", l.NVLinks)
	}
	if l.Code != "" {
		s += " (" + l.Code + ")"
	}
	return s
}
