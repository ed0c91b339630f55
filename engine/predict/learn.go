package predict

import (
	"math"
	"slices"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/hardware"
)

// RunCard is the card a run was measured on and how many of it served:
// the simulated card of a demo run (simulatedCard), else the first GPU of
// its hardware snapshot. ok is false when the run does not say.
func RunCard(r *rundoc.Run) (name string, cards int, ok bool) {
	cfg := runConfig(r)
	cards = max(cfg.TensorParallelSize, 1) * max(cfg.PipelineParallelSize, 1)
	if r.Simulated {
		p, ok := simulatedProfile(r, cfg, cards)
		return p.GPUName, cards, ok
	}
	if r.Hardware == nil || len(r.Hardware.GPUs) == 0 {
		return "", 0, false
	}
	return r.Hardware.GPUs[0].Name, cards, true
}

// simulatedProfile is the built-in profile a demo run's simulator ran: its
// --profile when its flags name one, else the profile that serves its
// model on enough cards (a demo run records its flags, not the profile
// the front end picked), else the flags' own (the default). The run's roofline recorded the simulated card's
// bandwidth; a run whose bandwidth is not that profile's (a demo of a card
// RigBench predicted, `--sim-profile "RTX 4090"`) is not credited to it:
// ok is false.
func simulatedProfile(r *rundoc.Run, cfg sim.Config, cards int) (sim.Profile, bool) {
	p, found := cfg.Profile, false
	if r.Launch != nil && slices.ContainsFunc(r.Launch.Args, func(a string) bool { return a == "--profile" || strings.HasPrefix(a, "--profile=") }) {
		found = true
	}
	for _, name := range sim.ProfileNames() {
		if found {
			break
		}
		if q, _ := sim.ProfileByName(name); q.Model == r.Server.Model && q.Cards() >= cards {
			p, found = q, true
		}
	}
	// A demo's roofline peak is its profile's one card (session's
	// runRoofline).
	if rf := r.Server.Roofline; rf != nil && rf.PeakBandwidthGBs > 0 && math.Abs(rf.PeakBandwidthGBs/p.PeakBandwidthGBs-1) > 0.01 {
		return p, false
	}
	return p, true // the flags' profile (the default): a served name is no profile's model
}

// runConfig is the run's launch flags as vLLM (and the simulator) read
// them; the defaults when it recorded none or they do not parse.
func runConfig(r *rundoc.Run) sim.Config {
	if r.Launch == nil {
		return sim.DefaultConfig()
	}
	cfg, err := sim.ParseArgs(r.Launch.Args)
	if err != nil {
		return sim.DefaultConfig()
	}
	return cfg
}

// nvlinked says whether a measured run's first two GPUs were joined by
// NVLink (the snapshot's topology), as the time model's link costs need.
func nvlinked(r *rundoc.Run) bool {
	if r.Hardware == nil {
		return false
	}
	for _, l := range r.Hardware.Topology {
		if l.Path == hardware.PathNVLink {
			return true
		}
	}
	return false
}

// Models finds a model's facts by id (BuiltinModel, a Lookup); false when
// it does not know the model.
type Models func(id string) (Model, bool)

// runModel is the facts of the model a run served: by its id, else from
// what the run's roofline recorded (the weights vLLM loaded and the KV
// bytes per token its log gave), its parameters then the weights at two
// bytes each.
func runModel(r *rundoc.Run, models Models) (Model, bool) {
	id := r.Server.Model
	if r.Launch != nil && r.Launch.Model != "" {
		id = r.Launch.Model
	}
	if models != nil {
		if m, ok := models(id); ok {
			return m, true
		}
	}
	if m, ok := BuiltinModel(id); ok {
		return m, true
	}
	rf := r.Server.Roofline
	if rf == nil || rf.WeightsGiB <= 0 || rf.KVBytesPerToken <= 0 {
		return Model{}, false
	}
	return Model{ID: id, WeightsGiB: rf.WeightsGiB, Params: rf.WeightsGiB * vllm.GiB / 2,
		KVBytesPerToken: rf.KVBytesPerToken, MaxLen: max(r.Server.MaxModelLen, 1), Source: "the run's roofline"}, true
}

// observation is one measured cell as learning reads it: the step time or
// TTFT it measured (y, seconds) and the time model's prediction of it as
// const + Σ k_j × terms_j, where k scales the profile's coefficients.
type observation struct {
	y, c  float64
	terms [3]float64
}

// scale multiplies a profile's decode coefficients: the step's fixed cost
// (weights) by k[0], the per-sequence cost by k[1] and the attention (KV
// reads) by k[2]; prefill's compute by k[3] when given.
func scale(p sim.Profile, k ...float64) sim.Profile {
	p.StepBaseS *= k[0]
	p.DecodePerSeqS *= k[1]
	p.DecodePerContextTokenS *= k[2]
	p.DecodeContextQuadS *= k[2]
	if len(k) > 3 {
		p.PrefillPerTokenS *= k[3]
		p.PrefillAttentionS *= k[3]
	}
	return p
}

// Learn is prior corrected by the measured runs on card: each Valid decode
// cell gives the step time it measured, B ÷ total tok/s with B the
// requests it ran at once, and each Valid prefill cell its TTFT. The time
// model is linear in three factors that scale its decode coefficients
// (weights read, per sequence, KV read), so a weighted least-squares fit of
// the relative errors finds them; a factor the cells cannot tell apart
// (every cell at one context, say) falls back to one common factor. The
// prefill factor is fitted alone from the TTFTs. The learned efficiencies
// are the prior's divided by the factors, so they carry to another model
// on the card; Runs counts the runs used and Uncertainty becomes twice
// the fit's RMS relative residual (at least 3%). Runs on another card, and
// runs whose model's facts are unknown, are left out.
func Learn(prior Efficiency, card Card, runs []*rundoc.Run, models Models) Efficiency {
	var dec, pre []observation
	used := 0
	for _, r := range runs {
		name, cards, ok := RunCard(r)
		if !ok || normCard(name) != normCard(card.Name) {
			continue
		}
		m, ok := runModel(r, models)
		if !ok {
			continue
		}
		cfg := runConfig(r)
		p0 := Profile(card, m, prior)
		p0.GPUs = cards
		if r.Simulated {
			if sp, _ := simulatedProfile(r, cfg, cards); sp.Link == sim.LinkNVLink {
				p0.Link = sim.LinkNVLink
			}
		} else if nvlinked(r) {
			p0.Link = sim.LinkNVLink
		}
		tp, pp := max(cfg.TensorParallelSize, 1), max(cfg.PipelineParallelSize, 1)
		at := func(k ...float64) (sim.Profile, bool) {
			p, err := sim.Parallel(scale(p0, k...), tp, pp)
			return p, err == nil
		}
		batched := cfg.MaxNumBatchedTokens
		if batched == 0 {
			batched = p0.DefaultMaxNumBatchedTokens
		}
		slots := cfg.MaxNumSeqs
		if slots == 0 {
			slots = p0.DefaultMaxNumSeqs
		}
		n0 := len(dec) + len(pre)
		if rl := r.Server.Roofline; rl != nil && rl.Speculative {
			// A drafting launch whose server had no drafting counters:
			// its cells' time per token is their prompts' acceptance as
			// much as the card's (below).
			continue
		}
		for _, c := range r.Cells {
			if c.Status != rundoc.StatusValid {
				continue
			}
			switch {
			case c.Phase == rundoc.PhaseDecode && c.Speculative():
				// A drafting cell's time per token is its prompt's
				// acceptance as much as the card's: it teaches the card's
				// efficiencies nothing a plain cell would not.
			case c.Phase == rundoc.PhaseDecode && c.TotalTokS > 0 && c.PerRequestTokS > 0:
				b := min(c.Concurrency, slots)
				window := c.MeasuredS
				if window <= 0 {
					window = r.Plan.DurationS
				}
				maxOut := r.Plan.MaxOutput
				if maxOut <= 0 {
					maxOut = rundoc.DefaultMaxOutput
				}
				ctx := float64(rundoc.PromptTokens(c.Context)) + grown(c.PerRequestTokS, maxOut, window)
				o := observation{y: float64(b) / c.TotalTokS}
				p, ok := at(0, 0, 0)
				if !ok {
					continue
				}
				o.c = p.DecodeStepS(b, ctx)
				for j, k := range [][]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}} {
					pj, _ := at(k...)
					o.terms[j] = pj.DecodeStepS(b, ctx) - o.c
				}
				dec = append(dec, o)
			case c.Phase == rundoc.PhasePrefill && c.TTFTMs > 0 && c.Context > 0:
				p, ok := at(1, 1, 1, 0)
				if !ok {
					continue
				}
				p1, _ := at(1, 1, 1, 1)
				o := observation{y: c.TTFTMs / 1000, c: ttft(p, c.Context, batched)}
				o.terms[0] = ttft(p1, c.Context, batched) - o.c
				pre = append(pre, o)
			}
		}
		if len(dec)+len(pre) > n0 {
			used++
		}
	}
	if used == 0 {
		return prior
	}
	e := prior
	var resid []float64
	if len(dec) > 0 {
		k := fitDecode(dec)
		e.Weights /= k[0]
		e.Seq /= k[1]
		e.KV /= k[2]
		resid = append(resid, residuals(dec, k[:])...)
	}
	if len(pre) > 0 {
		k := fitOne(pre, 0)
		e.Prefill /= k
		resid = append(resid, residuals(pre, []float64{k, 0, 0})...)
	}
	e.Runs = prior.Runs + used
	e.Source = "learned"
	var ss float64
	for _, r := range resid {
		ss += r * r
	}
	e.Uncertainty = math.Max(0.03, 2*math.Sqrt(ss/float64(len(resid))))
	return e
}

// factorLimits bound a learned factor: a run that says a term is ten times
// what the prior has is a run to distrust, not a card.
const factorMin, factorMax = 0.1, 10

// fitDecode fits the three decode factors, falling back to one common
// factor when the three are not all identified and in bounds.
func fitDecode(obs []observation) [3]float64 {
	if k, ok := solve3(obs); ok {
		return k
	}
	// One factor for the whole step: the terms summed.
	sum := make([]observation, len(obs))
	for i, o := range obs {
		sum[i] = observation{y: o.y, c: o.c, terms: [3]float64{o.terms[0] + o.terms[1] + o.terms[2]}}
	}
	k := fitOne(sum, 0)
	return [3]float64{k, k, k}
}

// fitOne is the weighted least-squares factor of term j alone:
// minimise Σ ((c + k·t − y)/y)², k = Σ t(y−c)/y² ÷ Σ t²/y².
func fitOne(obs []observation, j int) float64 {
	var num, den float64
	for _, o := range obs {
		t := o.terms[j] / o.y
		num += t * (o.y - o.c) / o.y
		den += t * t
	}
	if den <= 0 {
		return 1
	}
	return math.Min(math.Max(num/den, factorMin), factorMax)
}

// solve3 solves the 3×3 normal equations of the weighted fit by Gaussian
// elimination with partial pivoting; ok is false when they are singular
// (a term no cell tells apart) or a factor leaves its bounds.
func solve3(obs []observation) ([3]float64, bool) {
	var a [3][4]float64
	for _, o := range obs {
		var row [3]float64
		for j := range row {
			row[j] = o.terms[j] / o.y
		}
		r := (o.y - o.c) / o.y
		for i := range 3 {
			for j := range 3 {
				a[i][j] += row[i] * row[j]
			}
			a[i][3] += row[i] * r
		}
	}
	scaleN := math.Max(math.Abs(a[0][0]), math.Max(math.Abs(a[1][1]), math.Abs(a[2][2])))
	for col := range 3 {
		piv := col
		for r := col + 1; r < 3; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[piv][col]) {
				piv = r
			}
		}
		if math.Abs(a[piv][col]) <= 1e-9*scaleN {
			return [3]float64{}, false
		}
		a[col], a[piv] = a[piv], a[col]
		for r := range 3 {
			if r == col {
				continue
			}
			f := a[r][col] / a[col][col]
			for j := col; j < 4; j++ {
				a[r][j] -= f * a[col][j]
			}
		}
	}
	var k [3]float64
	for i := range 3 {
		k[i] = a[i][3] / a[i][i]
		if !(k[i] >= factorMin && k[i] <= factorMax) {
			return k, false
		}
	}
	return k, true
}

// residuals are the fit's relative errors, (prediction − y) ÷ y.
func residuals(obs []observation, k []float64) []float64 {
	out := make([]float64, len(obs))
	for i, o := range obs {
		pred := o.c
		for j := range 3 {
			pred += k[j] * o.terms[j]
		}
		out[i] = (pred - o.y) / o.y
	}
	return out
}
