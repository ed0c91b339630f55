package tune

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
)

// Mode says how dimensions combine into variants.
type Mode string

// Sweep modes.
const (
	// Grid runs every combination of the dimensions' values.
	Grid Mode = "grid"
	// OneAtATime changes one flag at a time from the base launch.
	OneAtATime Mode = "one-at-a-time"
)

// Dimension is one flag a sweep varies and the values it tries.
type Dimension struct {
	// Flag is the catalog's long name ("--kv-cache-dtype").
	Flag string `json:"flag"`
	// Values as the command line takes them; booleans are "true"/"false".
	Values []string `json:"values"`
}

// Spec is everything a sweep needs to run and to be resumed.
type Spec struct {
	// ID names the sweep; every run it saves carries the tag Tag(ID).
	ID string `json:"sweep_id"`
	// Base is the user's launch: model, image and vLLM flags. Variants
	// change only the dimensions' flags.
	Base       vllm.LaunchConfig `json:"base"`
	Dimensions []Dimension       `json:"dimensions"`
	Mode       Mode              `json:"mode"`
	// Plan is the workload every variant measures (a few cells).
	Plan        rundoc.Plan  `json:"plan"`
	Objective   Objective    `json:"objective"`
	Constraints []Constraint `json:"constraints,omitempty"`
	// Target is where the variants run (TargetDemo or TargetLaunch), and
	// SimSpeed and SimProfile the demo's simulator settings: what a resume
	// from the spec file alone needs.
	Target     session.Kind `json:"target,omitempty"`
	SimSpeed   float64      `json:"sim_speed,omitempty"`
	SimProfile string       `json:"sim_profile,omitempty"`
	// Expect are the predictions of the advice the sweep was built from
	// (FromAdvice), which the verdict checks; none for a sweep of the
	// user's own.
	Expect []Expectation `json:"expect,omitempty"`
	// Rig is where a launch sweep's variants run, as the user named it
	// (rig.Parse: "" or "local", ssh://user@host[:port], a Docker
	// context), so a resume launches on the same rig. The spec file stays
	// beside the history; the sweep document (Doc) does not carry it.
	Rig string `json:"rig,omitempty"`
	// Cluster, for a launch sweep over several rigs (issue 40), is the
	// cluster every variant launches (session.ClusterInput: the rigs, the
	// interface, the nodes' addresses, the ports), each through the same
	// ClusterLauncher as run --launch --rigs; the split is varied with the
	// launch's --tensor-parallel-size and --pipeline-parallel-size, which
	// engine/cluster honours where the rigs allow them. Nil: one rig.
	Cluster *session.ClusterInput `json:"cluster,omitempty"`
	// Quality is the probe each variant's server is asked after its
	// workload ("gsm8k:200", "agreement"; "" asks none), paired against the
	// base launch's (issue 37), and QualityDataset the file its items are
	// read from when they are not fetched: a resume asks the same.
	Quality        string `json:"quality,omitempty"`
	QualityDataset string `json:"quality_dataset,omitempty"`
}

// OnRig reports whether the variants run on a rig other than this
// machine's daemon (or over several rigs): their hardware is then read per
// variant by the session (through the rig, or every rig of the cluster),
// not detected here once for the sweep.
func (s Spec) OnRig() bool {
	if s.Cluster != nil {
		return true
	}
	sp, err := rig.Parse(s.Rig)
	return err == nil && sp.Kind != rig.Local
}

// OneRig is the rig a launch sweep's front end connects to once for every
// variant (UseRig), false for this machine's daemon and for a cluster,
// whose launcher connects to its rigs itself.
func (s Spec) OneRig() bool { return s.Cluster == nil && s.OnRig() }

// Tag is the history tag of the runs of sweep id.
func Tag(id string) string { return "sweep:" + id }

// SweepOf is the id of the sweep a run with these tags belongs to (Tag),
// and whether it belongs to one: History warns before deleting such a run,
// since the sweep's verdict is then judged without it.
func SweepOf(tags []string) (id string, ok bool) {
	for _, t := range tags {
		if id, ok := strings.CutPrefix(t, Tag("")); ok && CheckID(id) == nil {
			return id, true
		}
	}
	return "", false
}

// NewID returns a fresh sweep id: 8 hex digits, short enough to type after
// --resume.
func NewID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ParseDimension reads "FLAG=V1,V2[,…]" (FLAG with or without its leading
// dashes, e.g. "kv-cache-dtype=auto,fp8"). Booleans take on/off, true/false
// or yes/no. Each value is checked against the flag catalog.
func ParseDimension(s string) (Dimension, error) {
	name, vals, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Dimension{}, fmt.Errorf("%q: write FLAG=V1,V2, e.g. kv-cache-dtype=auto,fp8", s)
	}
	return NewDimension(name, vllm.SplitValues(vals))
}

// NewDimension checks a flag and its values against the catalog and returns
// the dimension with the flag's long name and booleans as "true"/"false".
func NewDimension(name string, values []string) (Dimension, error) {
	if !strings.HasPrefix(name, "-") {
		name = "--" + name
	}
	if name == "--speculative" || name == vllm.SpeculativeFlag {
		return speculativeDimension(values)
	}
	switch strings.TrimPrefix(name, "--") {
	case SplitDimension:
		return splitDimension(values)
	case InterfaceDimension:
		return interfaceDimension(values)
	}
	f, _, known := vllm.Lookup(name)
	if !known || !vllm.Tunable(name) {
		return Dimension{}, fmt.Errorf("%s cannot be varied: a sweep varies the catalog's numeric, choice and on/off flags (e.g. --kv-cache-dtype, --max-num-seqs, --enable-prefix-caching)", name)
	}
	if len(values) == 0 {
		return Dimension{}, fmt.Errorf("%s needs values to try, e.g. %s=%s", f.Name, strings.TrimPrefix(f.Name, "--"), strings.Join(vllm.Suggestions(f.Name), ","))
	}
	d := Dimension{Flag: f.Name}
	seen := map[string]bool{}
	for _, v := range values {
		if f.Type == vllm.KindBool {
			b, ok := vllm.ParseOnOff(v)
			if !ok {
				return Dimension{}, fmt.Errorf("%s takes on or off, not %q", f.Name, v)
			}
			v = strconv.FormatBool(b)
		} else {
			probe := vllm.LaunchConfig{Model: "m", Flags: []vllm.FlagValue{{Name: f.Name, Value: v}}}
			if errs := vllm.Errors(probe.Validate()); len(errs) > 0 {
				return Dimension{}, fmt.Errorf("%s %s: %v", f.Name, v, errs[0])
			}
		}
		// "1" and "01", or "0.9" and "0.90", launch the same server: one
		// measurement, not two (issue 36 item 10). The key is the number a
		// value reads as (vllm.SameValue's rule), so a list of 10,000
		// values costs one look-up each.
		key := v
		if x, err := strconv.ParseFloat(v, 64); err == nil {
			key = strconv.FormatFloat(x, 'g', -1, 64)
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		d.Values = append(d.Values, v)
	}
	return d, nil
}

// Variant is one launch configuration of a sweep.
type Variant struct {
	// Index is the variant's place in the sweep, 0 for the first.
	Index int
	// Changes are the flags set differently from the base, in dimension
	// order; empty for the base itself.
	Changes []vllm.FlagValue
	// Config is the base launch with the changes applied.
	Config vllm.LaunchConfig
	// Interface is the link's interface the variant's cluster uses, where
	// the sweep varies it (InterfaceDimension) and this variant's differs
	// from the cluster's own; "" for the cluster's.
	Interface string
}

// IsBase reports whether the variant is the user's own flags.
func (v Variant) IsBase() bool { return len(v.Changes) == 0 && v.Interface == "" }

// Label names the variant by the flags it changes, as a command line
// ("--kv-cache-dtype fp8 --max-num-seqs 32"), and the interface its
// cluster's nodes use where that differs ("over enp65s0f0"), or "your
// flags" for the base.
func (v Variant) Label() string {
	if v.IsBase() {
		return BaseLabel
	}
	label := FlagsLabel(v.Changes)
	if v.Interface != "" {
		label = strings.TrimSpace(label + " over " + v.Interface)
	}
	return label
}

// BaseLabel is the label of the base variant.
const BaseLabel = "your flags"

// FlagsLabel renders flag changes as a command line; a boolean reads as its
// bare name or its negation.
//
// Speculative decoding reads in its short form ("speculative mtp:2",
// "without speculative decoding"): its JSON would fill a table's column.
func FlagsLabel(fvs []vllm.FlagValue) string {
	var parts []string
	for _, fv := range fvs {
		switch {
		case fv.Name == vllm.SpeculativeFlag && fv.Value == "":
			parts = append(parts, "without speculative decoding")
		case fv.Name == vllm.SpeculativeFlag:
			parts = append(parts, "speculative "+vllm.SpeculativeLabel(fv.Value))
		case fv.Value == "":
			parts = append(parts, "without "+fv.Name)
		default:
			parts = append(parts, vllm.JoinArgs(FlagArgs([]vllm.FlagValue{fv})))
		}
	}
	return strings.Join(parts, " ")
}

// FlagArgs renders flag changes as command-line arguments: a true boolean
// is its bare name, a false one its negation ("--no-enable-prefix-caching").
//
// A flag left out (Value "", speculative "off") has no argument: its label
// says "without" it (FlagsLabel).
func FlagArgs(fvs []vllm.FlagValue) []string {
	var out []string
	for _, fv := range fvs {
		if fv.Value == "" {
			continue
		}
		f, _, ok := vllm.Lookup(fv.Name)
		if ok && f.Type == vllm.KindBool {
			switch b, _ := vllm.ParseOnOff(fv.Value); {
			case b:
				out = append(out, f.Name)
			case f.Negation != "":
				out = append(out, f.Negation)
			default:
				out = append(out, f.Name+"=false")
			}
			continue
		}
		out = append(out, fv.Name, fv.Value)
	}
	return out
}

// ErrNothingToVary is Validate's error for a spec without dimensions;
// each front end adds how to give one (the CLI's --vary, the app's Add).
var ErrNothingToVary = errors.New("nothing to vary: give at least one flag and the values to try")

// Validate checks the spec before anything starts, with errors worded for
// the user.
func (s Spec) Validate() error {
	if len(s.Dimensions) == 0 {
		return ErrNothingToVary
	}
	seen := map[string]bool{}
	for _, d := range s.Dimensions {
		if seen[d.Flag] {
			return fmt.Errorf("%s is varied twice: give its values in one list", d.Flag)
		}
		seen[d.Flag] = true
		if len(d.Values) == 0 {
			return fmt.Errorf("%s has no values to try", d.Flag)
		}
		// A spec read back from its file may have been edited: its
		// dimensions meet the catalog's rules as --vary's do, so a secret
		// or unknown flag is never varied (nor put into run names).
		nd, err := NewDimension(d.Flag, d.Values)
		if err != nil {
			return err
		}
		if nd.Flag != d.Flag {
			return fmt.Errorf("%s is not the catalog's name of the flag: write %s", d.Flag, nd.Flag)
		}
	}
	if err := s.checkJointDimensions(); err != nil {
		return err
	}
	if s.QualityDataset != "" && s.Quality == "" {
		return fmt.Errorf("the sweep names a quality data set (%s) but no quality probe: give --quality gsm8k:N with it", s.QualityDataset)
	}
	switch s.Mode {
	case Grid, OneAtATime:
	default:
		return fmt.Errorf("unknown sweep mode %q (grid or one-at-a-time)", s.Mode)
	}
	if n := s.Count(); n > MaxVariants {
		hint := "vary fewer flags or fewer values"
		if s.Mode == Grid && len(s.Dimensions) > 1 {
			hint += ", or change one flag at a time (--one-at-a-time)"
		}
		return fmt.Errorf("a sweep runs at most %d variants (each one launches the server and measures every cell), and this one has %d: %s", MaxVariants, n, hint)
	}
	if len(s.Plan.Contexts) == 0 || len(s.Plan.Concurrency) == 0 {
		return errors.New("the workload has no cells: give contexts and concurrency levels")
	}
	if err := s.checkGPUs(); err != nil {
		return err
	}
	if _, err := rig.Parse(s.Rig); err != nil {
		return err
	}
	if s.Cluster != nil {
		if err := s.checkCluster(); err != nil {
			return err
		}
	}
	if s.OnRig() && s.Target != TargetLaunch {
		return fmt.Errorf("sweep %s names the rig %s but runs on the simulator: only a launch sweep runs on a rig", s.ID, s.Rig)
	}
	if err := s.Objective.check(s.Plan); err != nil {
		return fmt.Errorf("the objective %s %w", s.Objective, err)
	}
	return nil
}

// checkGPUs refuses a sweep whose variants need more GPUs than the launch
// picks (--tensor-parallel-size × --pipeline-parallel-size,
// vllm.LaunchConfig.WorldSize): such a variant would fail at its launch,
// after the ones before it ran. With "all" GPUs the count is the rig's,
// unknown here, and vLLM says so at the launch. A demo sweep has its
// simulator profile's cards.
func (s Spec) checkGPUs() error {
	if s.Cluster != nil {
		// A cluster's GPUs are every rig's: its splits are judged against
		// the rigs (checkCluster now, cluster.CheckSplit once they are
		// read), not against one container's pick.
		return nil
	}
	n := s.Base.PickedGPUs()
	if s.Target == TargetDemo {
		if p, err := sim.ProfileByName(s.SimProfile); err == nil {
			n = p.Cards()
		}
	}
	if n == 0 {
		return nil
	}
	for _, v := range s.Variants() {
		if w := v.Config.WorldSize(); w > n {
			return fmt.Errorf("the variant %s needs %d GPUs (tensor × pipeline parallel size), but the launch gives the container %d: pick more GPUs or try smaller sizes", v.Label(), w, n)
		}
	}
	return nil
}

// MaxVariants is the most variants a sweep may have. Each variant launches
// the server (a minute or more for a real model) and measures every cell,
// so 256 is already days of card time; a spec over it is refused by
// Validate before any variant is built.
const MaxVariants = 256

// Count is how many variants the spec asks for, found by arithmetic
// without building them: a grid's combinations (the base is one of them or
// comes in front), or one-at-a-time's base plus each value; duplicates are
// merged later, so Variants may list fewer. A grid too large for an int
// counts as math.MaxInt.
func (s Spec) Count() int {
	n := 1
	for _, d := range s.Dimensions {
		k := max(1, len(d.Values))
		switch {
		case s.Mode == OneAtATime:
			n += k
		case n > math.MaxInt/k:
			return math.MaxInt
		default:
			n *= k
		}
	}
	return n
}

// Variants lists the sweep's launches, the base first. Grid is every
// combination of the values (the base is the combination equal to the
// user's flags, or added in front when none is); one-at-a-time is the base
// plus, for each dimension, each value that differs from the base's.
// Variants that end up with the same flags are listed once.
func (s Spec) Variants() []Variant {
	base := Variant{Config: s.Base}
	out := []Variant{base}
	seen := map[string]bool{}
	add := func(changes []vllm.FlagValue) {
		var eff []vllm.FlagValue
		cfg := s.Base
		changes, iface := expandChanges(changes)
		if s.Cluster != nil && iface == strings.TrimSpace(s.Cluster.Interface) {
			iface = ""
		}
		for _, ch := range changes {
			if ch.Value == "" {
				// A flag left out (speculative "off"): a change only when
				// the base sets it.
				if _, ok := s.Base.Get(ch.Name); ok {
					eff = append(eff, ch)
					cfg.Unset(ch.Name)
				}
				continue
			}
			if cur, ok := s.Base.Get(ch.Name); ok && vllm.SameValue(ch.Name, cur, ch.Value) {
				continue
			}
			if _, ok := s.Base.Get(ch.Name); !ok && vllm.IsDefault(ch.Name, ch.Value) {
				continue
			}
			eff = append(eff, ch)
			cfg.Set(ch.Name, ch.Value)
		}
		v := Variant{Index: len(out), Changes: eff, Config: cfg, Interface: iface}
		key := v.Label()
		if v.IsBase() || seen[key] {
			return
		}
		seen[key] = true
		out = append(out, v)
	}
	switch s.Mode {
	case OneAtATime:
		for _, d := range s.Dimensions {
			for _, v := range d.Values {
				add([]vllm.FlagValue{{Name: d.Flag, Value: v}})
			}
		}
	default:
		idx := make([]int, len(s.Dimensions))
		for {
			ch := make([]vllm.FlagValue, len(s.Dimensions))
			for i, d := range s.Dimensions {
				ch[i] = vllm.FlagValue{Name: d.Flag, Value: d.Values[idx[i]]}
			}
			add(ch)
			i := len(idx) - 1
			for ; i >= 0; i-- {
				if idx[i]++; idx[i] < len(s.Dimensions[i].Values) {
					break
				}
				idx[i] = 0
			}
			if i < 0 {
				break
			}
		}
	}
	return out
}

// speculativeDimension is the sweep's speculative-decoding dimension
// (--vary speculative=off,mtp:1,mtp:2): each value as
// vllm.SpeculativeValue reads it, "" for off, duplicates once.
func speculativeDimension(values []string) (Dimension, error) {
	if len(values) == 0 {
		return Dimension{}, fmt.Errorf("speculative needs values to try, e.g. speculative=off,mtp:1,mtp:2,mtp:3")
	}
	return onceEach(vllm.SpeculativeFlag, values, vllm.SpeculativeValue)
}

// Text is the dimension as --vary takes it ("kv-cache-dtype=auto,fp8",
// "speculative=off,mtp:2").
func (d Dimension) Text() string {
	if d.Flag == vllm.SpeculativeFlag {
		labels := make([]string, len(d.Values))
		for i, v := range d.Values {
			labels[i] = vllm.SpeculativeLabel(v)
		}
		return "speculative=" + strings.Join(labels, ",")
	}
	return strings.TrimPrefix(d.Flag, "--") + "=" + strings.Join(d.Values, ",")
}
