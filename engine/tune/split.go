package tune

// The two dimensions a sweep over a cluster varies that are not one vLLM
// flag each: the split (tensor × pipeline parallel sizes, two flags that
// go together) and the interface of the link (the nodes' NCCL and Gloo
// interface, not a flag of vllm serve at all).

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
)

// Names of the dimensions that are not one vLLM flag. They carry no
// leading dashes, so no flag of the catalog can be mistaken for them.
const (
	// SplitDimension varies --tensor-parallel-size and
	// --pipeline-parallel-size together ("split=1x2,2x2"): a grid of the
	// two flags apart would also try the splits nobody asked for (2×2
	// and 1×1 beside 2×1 and 1×2).
	SplitDimension = "split"
	// InterfaceDimension varies the network interface a cluster's nodes
	// use between them (NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME), e.g.
	// "interface=enp1s0,enp65s0f0" to compare a 10 GbE port with a
	// faster one. Only a sweep over several rigs (--rigs) varies it.
	InterfaceDimension = "interface"
)

// splitFlags are the flags a split value sets, in the order TP, PP.
var splitFlags = [2]string{"--tensor-parallel-size", "--pipeline-parallel-size"}

// ParseSplit reads a split as people write it: "2x2", "2×2", "TP2xPP2" or
// "tp 2 × pp 2" (tensor parallel size first), each size 1 to 16 as the
// flag catalog allows.
func ParseSplit(s string) (tp, pp int, err error) {
	t := strings.ToLower(strings.Join(strings.Fields(s), ""))
	t = strings.ReplaceAll(t, "×", "x")
	a, b, ok := strings.Cut(t, "x")
	a, b = strings.TrimPrefix(a, "tp"), strings.TrimPrefix(b, "pp")
	if ok {
		tp, err = strconv.Atoi(a)
		if err == nil {
			pp, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || tp < 1 || pp < 1 || tp > 16 || pp > 16 {
		return 0, 0, fmt.Errorf("split %q: write TxP, the tensor parallel size times the pipeline parallel size, each 1 to 16 (e.g. split=1x2,2x2)", s)
	}
	return tp, pp, nil
}

// splitText is a split's canonical value in a dimension: "2x2".
func splitText(tp, pp int) string { return strconv.Itoa(tp) + "x" + strconv.Itoa(pp) }

// splitDimension is the sweep's split dimension, each value canonical
// ("2x2"), duplicates once.
func splitDimension(values []string) (Dimension, error) {
	if len(values) == 0 {
		return Dimension{}, fmt.Errorf("split needs values to try, e.g. split=1x2,2x2 (tensor × pipeline parallel sizes)")
	}
	return onceEach(SplitDimension, values, func(v string) (string, error) {
		tp, pp, err := ParseSplit(v)
		return splitText(tp, pp), err
	})
}

// interfaceDimension is the sweep's interface dimension: each value a
// network interface's name as a cluster launch takes it
// (session.IsInterface), duplicates once.
func interfaceDimension(values []string) (Dimension, error) {
	if len(values) == 0 {
		return Dimension{}, fmt.Errorf("interface needs values to try, e.g. interface=enp1s0,enp65s0f0 (see `ip link` on the rigs)")
	}
	return onceEach(InterfaceDimension, values, func(v string) (string, error) {
		if v = strings.TrimSpace(v); !session.IsInterface(v) {
			return "", fmt.Errorf("interface %q is not a network interface's name, such as enp1s0 (see `ip link` on the rigs)", v)
		}
		return v, nil
	})
}

// onceEach is the dimension flag with each value as canon writes it, a
// value canon refuses refusing the dimension, and duplicates once.
func onceEach(flag string, values []string, canon func(string) (string, error)) (Dimension, error) {
	d := Dimension{Flag: flag}
	seen := map[string]bool{}
	for _, v := range values {
		c, err := canon(v)
		if err != nil {
			return Dimension{}, err
		}
		if !seen[c] {
			seen[c] = true
			d.Values = append(d.Values, c)
		}
	}
	return d, nil
}

// expandChanges turns a variant's dimension values into what it changes:
// a split into its two flags, an interface apart (it is no flag of the
// launch), every other change as it is.
func expandChanges(changes []vllm.FlagValue) (flags []vllm.FlagValue, iface string) {
	for _, ch := range changes {
		switch ch.Name {
		case SplitDimension:
			tp, pp, _ := ParseSplit(ch.Value) // checked by splitDimension
			flags = append(flags, vllm.FlagValue{Name: splitFlags[0], Value: strconv.Itoa(tp)},
				vllm.FlagValue{Name: splitFlags[1], Value: strconv.Itoa(pp)})
		case InterfaceDimension:
			iface = ch.Value
		default:
			flags = append(flags, ch)
		}
	}
	return flags, iface
}

// checkJointDimensions refuses dimensions that would set one flag twice
// (split beside --tensor-parallel-size or --pipeline-parallel-size), and
// an interface varied without a cluster, before any variant starts.
func (s Spec) checkJointDimensions() error {
	var split bool
	for _, d := range s.Dimensions {
		split = split || d.Flag == SplitDimension
	}
	for _, d := range s.Dimensions {
		if split && (d.Flag == splitFlags[0] || d.Flag == splitFlags[1]) {
			return fmt.Errorf("%s is varied twice: split sets it with --pipeline-parallel-size or --tensor-parallel-size, so give its values in split's list (e.g. split=1x2,2x2)", d.Flag)
		}
		if d.Flag == InterfaceDimension && s.Cluster == nil {
			return fmt.Errorf("interface is varied only over several rigs (the CLI's --rigs, the app's Launch page box \"Serve one model over several rigs\"): it is the link between the rigs' nodes, and one rig has none")
		}
	}
	return nil
}

// linkOf is the interface variant v's cluster runs over, where the sweep
// varies it (the cluster's own for a variant that keeps it), else "".
func (s Spec) linkOf(v Variant) string {
	if v.Interface != "" || s.Cluster == nil {
		return v.Interface
	}
	for _, d := range s.Dimensions {
		if d.Flag == InterfaceDimension {
			return strings.TrimSpace(s.Cluster.Interface)
		}
	}
	return ""
}
