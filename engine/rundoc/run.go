package rundoc

import (
	"strconv"
	"time"

	"github.com/rigbench/rigbench/hardware"
)

// Schema names the version of the run document. A reader refuses any other
// value; a change that breaks old readers gets a new name.
const Schema = "rigbench.run/v1"

// Run is the run document: everything one benchmark produced. It is the one
// type that the CLI's --json, the history store, the JSON export/import and
// every report read or write (see docs/run-json.md). It holds no secrets,
// usernames or paths; the one host name it may hold is the rig's, as the
// user named it (Rig).
type Run struct {
	Schema string `json:"schema"`
	// UUID identifies the run everywhere; imports are idempotent by it.
	UUID  string   `json:"uuid"`
	Name  string   `json:"name,omitempty"`
	Tags  []string `json:"tags,omitempty"`
	Notes string   `json:"notes,omitempty"`
	// Status is the run's lifecycle state (RunRunning … RunFailed).
	Status     RunStatus `json:"status"`
	CreatedAt  time.Time `json:"created_at"`
	FinishedAt time.Time `json:"finished_at,omitzero"`
	// Origin says where the run came from: "measured" here or "imported".
	Origin string `json:"origin,omitempty"`
	// Simulated is true when the server was RigBench's simulator (demo mode);
	// every view labels such runs.
	Simulated bool               `json:"simulated,omitempty"`
	Plan      Plan               `json:"plan"`
	Hardware  *hardware.Snapshot `json:"hardware,omitempty"`
	Launch    *Launch            `json:"launch,omitempty"`
	// Rig is the Docker host the launched server ran on (nil: not
	// recorded, as for a demo, an endpoint or a run from before rigs).
	Rig    *Rig   `json:"rig,omitempty"`
	Server Server `json:"server"`
	Cells  []Cell `json:"cells"`
	Error  string `json:"error,omitempty"`

	// Source is what an imported file said about itself (its layout, its
	// writer, whether it says what served it, the file itself); nil for a
	// run measured here.
	Source *Source `json:"source,omitempty"`

	// Quality is the quality probe asked of the run's server after its
	// matrix, and its pairing with a baseline; nil when none was asked.
	Quality *Quality `json:"quality,omitempty"`
}

// RunStatus is the lifecycle state of a run.
type RunStatus string

// Run lifecycle states.
const (
	RunRunning     RunStatus = "running"
	RunComplete    RunStatus = "complete"
	RunCancelled   RunStatus = "cancelled"
	RunInterrupted RunStatus = "interrupted"
	RunFailed      RunStatus = "failed"
)

// Origin values of Run.Origin.
const (
	OriginMeasured = "measured"
	OriginImported = "imported"
)

// Plan is what a run measures (METHOD.md: Terms). Contexts and prompt
// lengths are in tokens as the server counts them; 16K = 16384.
type Plan struct {
	// Contexts of the decode grid, ascending. ContextMax in a plan given to
	// the runner resolves to max_model_len − MaxOutput before the run; the
	// stored plan holds resolved values.
	Contexts []int `json:"contexts"`
	// Concurrency levels N of the decode grid, ascending.
	Concurrency []int `json:"concurrency"`
	// PrefillContexts are the prompt lengths of the prefill cells.
	PrefillContexts []int `json:"prefill_contexts"`
	// DurationS is the decode window length D in seconds; for adaptive
	// windows (Window "auto") the longest a window may last, and the
	// length whose reading a shorter window reports (METHOD.md: Adaptive
	// windows).
	DurationS float64 `json:"duration_s"`
	// Window is how decode windows end: WindowFixed after D seconds (the
	// seed tool's method, and "" in runs written before windows adapted),
	// or WindowAuto as soon as total tok/s is known within Precision.
	Window string `json:"window,omitempty"`
	// Precision is the 95% half-width, as a share of total tok/s, at which
	// an adaptive window stops (0.01: ±1%).
	Precision float64 `json:"precision,omitempty"`
	// WindowOpens says when a decode window opens: OpensSteady (at steady
	// state, the seed tool's method) or OpensFirstSend ("" in runs written
	// before steady-state windows, whose figures include the ramp).
	WindowOpens string `json:"window_opens,omitempty"`
	// Prompts is the prompt policy: PromptsShared (one document per
	// context for every stream and cell) or PromptsUnique ("" in runs
	// written before the policy was a choice).
	Prompts string `json:"prompts,omitempty"`
	// MaxOutput is max_tokens M of every decode request.
	MaxOutput int `json:"max_output"`
	// KVCapacityOverride, when > 0, replaces the server's KV capacity.
	KVCapacityOverride int `json:"kv_capacity_override,omitempty"`
	// SimSpeed is the speed factor S of RigBench's simulator when the run
	// measured it (0 or 1: real time). The simulator then runs S times
	// faster than the card it imitates; windows last D/S real seconds and
	// every figure is converted back to the simulated card's time (rates
	// ÷ S, durations × S), so a fast demo reads like the card.
	SimSpeed float64 `json:"sim_speed,omitempty"`
	// AcceptLenRef, when > 0, is the acceptance length L at which every
	// drafting decode cell also reports projected tok/s = steps/s × L
	// (METHOD.md: Speculative decoding), so runs whose prompts draft
	// differently compare on one footing.
	AcceptLenRef float64 `json:"accept_len_ref,omitempty"`
	// TrimContexts drops (instead of rejecting) contexts above the server's
	// max_model_len when the plan is resolved: set for default plans, so the
	// defaults work on any server while explicit contexts are checked.
	TrimContexts bool `json:"-"`
	// Burst is whether the run measures burst cells (METHOD.md: Burst
	// cells): BurstAfter (after the sustained matrix), BurstOnly (instead
	// of it) or "" (none, and every run written before burst cells).
	Burst string `json:"burst,omitempty"`
	// RequestCount is K of every burst cell; 0 means BurstPerConcurrency
	// × the cell's concurrency (RequestCountFor).
	RequestCount int `json:"request_count,omitempty"`
	// BurstLimitS bounds a burst cell's measured requests in the card's
	// seconds; 0 means DefaultBurstLimit.
	BurstLimitS float64 `json:"burst_limit_s,omitempty"`
}

// ContextMax in Plan.Contexts stands for the longest context that fits:
// max_model_len − MaxOutput.
const ContextMax = -1

// Launch is the launch configuration of a server RigBench started, without
// secrets: tokens and API keys are never stored here.
type Launch struct {
	Image string `json:"image"`
	Model string `json:"model"`
	// Args is the `vllm serve` argument list after the model.
	Args []string `json:"args,omitempty"`
	// ServeCommand and DockerCommand are the copy-pasteable command lines,
	// with secrets replaced by placeholders.
	ServeCommand  string `json:"serve_command,omitempty"`
	DockerCommand string `json:"docker_command,omitempty"`
	GPUs          string `json:"gpus,omitempty"`
	// CompileCache is the host folder mounted as vLLM's cache root, where
	// torch.compile keeps its graphs between starts; "" when none was.
	CompileCache string `json:"compile_cache,omitempty"`
	// Startup is how long this start took and where the time went; nil in
	// runs from before it was recorded.
	Startup *Startup `json:"startup,omitempty"`
	// Cluster is the Ray cluster the server spanned (cluster.go); nil for
	// a server on one rig.
	Cluster *Cluster `json:"cluster,omitempty"`
}

// Startup is one server start: the wall time from starting the container
// until the server answered, and the parts of it vLLM's start-up log
// names. The parts are vLLM's own figures; they need not add up to LoadS,
// which also holds the process start, the memory profiling and the HTTP
// server's start (LoadS − the parts is that rest).
type Startup struct {
	// LoadS is from the container's start until /health answered 200 and
	// /v1/models listed the model, in seconds.
	LoadS float64 `json:"load_s"`
	// WeightsS is "Model loading took … seconds", CompileS "torch.compile
	// takes … s in total", GraphCaptureS "Graph capturing finished in …
	// secs"; each 0 (absent) where the log did not say, as with
	// --enforce-eager, which neither compiles nor captures.
	WeightsS      float64 `json:"weights_s,omitempty"`
	CompileS      float64 `json:"compile_s,omitempty"`
	GraphCaptureS float64 `json:"graph_capture_s,omitempty"`
	// CompileCacheHit: the log said the compiled graphs were loaded from
	// the cache ("Directly load the compiled graph(s) … from the cache").
	CompileCacheHit bool `json:"compile_cache_hit,omitempty"`
}

// Rig names the Docker host a launched server ran on, so the history
// tells "the 3090 box" from "the 4090 box"; its GPUs are the run's
// Hardware. It holds no user name and no secret.
type Rig struct {
	// Kind is "local" (this machine's daemon), "ssh" or "context"
	// (engine/rig's kinds).
	Kind string `json:"kind"`
	// Name is the rig as the user named it, less the user name:
	// "local", "ssh://basement:2222", a Docker context's name.
	Name string `json:"name"`
}

// Rig kinds of Rig.Kind, engine/rig's Kind values (which this leaf
// package cannot import).
const (
	RigLocal   = "local"
	RigSSH     = "ssh"
	RigContext = "context"
)

// RigName is the rig the run's server ran on, "" when not recorded.
func (r *Run) RigName() string {
	if r.Rig == nil {
		return ""
	}
	return r.Rig.Name
}

// Server holds the facts the benchmarked server reported about itself.
type Server struct {
	Model       string `json:"model"`
	Engine      string `json:"engine,omitempty"` // "vllm", "llama.cpp", "simulated", …
	Version     string `json:"version,omitempty"`
	MaxModelLen int    `json:"max_model_len,omitempty"`
	// KVCapacityTokens is K of METHOD.md, 0 when unknown.
	KVCapacityTokens int `json:"kv_capacity_tokens,omitempty"`
	// KVCapacitySource: "metrics" (vllm:cache_config_info), "log" (start-up
	// line), "user" (override) or "unknown".
	KVCapacitySource string `json:"kv_capacity_source"`
	HasMetrics       bool   `json:"has_metrics"`
	HasTokenize      bool   `json:"has_tokenize"`
	ServerFacts
}

// KV capacity sources.
const (
	KVSourceMetrics = "metrics"
	KVSourceLog     = "log"
	KVSourceUser    = "user"
	KVSourceUnknown = "unknown"
	// KVSourceProps: llama-server's /props in runs before issue 28, from
	// fields only the simulator had; a real llama-server reports no pool
	// size, so new runs have it from the user or not at all.
	KVSourceProps = "props"
	// KVSourceServerInfo: SGLang's /get_server_info (max_total_num_tokens).
	KVSourceServerInfo = "server_info"
)

// Phase is the kind of cell.
type Phase string

// Cell phases.
const (
	PhasePrefill Phase = "prefill"
	PhaseDecode  Phase = "decode"
)

// Status of a cell, worded as in METHOD.md.
type Status string

// Cell statuses (METHOD.md: Decode cells, step 5).
const (
	StatusValid         Status = "Valid"
	StatusQueued        Status = "Requests queued"
	StatusOverCapacity  Status = "Over capacity"
	StatusExceedsLength Status = "Exceeds model length"
	StatusFailed        Status = "Failed"
	StatusCancelled     Status = "Cancelled"
	// StatusUnreliable: the cell ran, but its own evidence contradicts its
	// figure (METHOD.md: Status, Unreliable): the server's counter, usage
	// against the chunks, a ± wider than the figure can bear, a client
	// that fell behind. Its figures stay in the cell for the record, as a
	// Failed cell's do, but it is no headline: it is not Ran, so charts,
	// Compare, Tune and the diagnosis leave it out, and a resume measures
	// it again. Its Reason starts with the short head UnreliableHead
	// returns, which the matrices print on the cell.
	StatusUnreliable Status = "Unreliable"
)

// Ran reports whether a cell of this status produced figures.
func (s Status) Ran() bool { return s == StatusValid || s == StatusQueued }

// Token count sources of Cell.TokenCountSource.
const (
	// TokensContinuousUsage: per-chunk usage (continuous_usage_stats).
	TokensContinuousUsage = "continuous_usage"
	// TokensFinalUsage: only the final usage chunk of each request.
	TokensFinalUsage = "final_usage"
	// TokensChunks: counted content chunks (the server sent no usage).
	TokensChunks = "chunks"
)

// Cell is one (phase, context, concurrency) measurement with every figure of
// METHOD.md. Figures that were not measured are zero and omitted from JSON.
type Cell struct {
	Phase       Phase  `json:"phase"`
	Context     int    `json:"context"`
	Concurrency int    `json:"concurrency"`
	Status      Status `json:"status"`
	Reason      string `json:"reason,omitempty"`

	// Prefill: prompt_tokens / TTFT.
	PromptTokS   float64 `json:"prompt_tok_s,omitempty"`
	PromptTokens int     `json:"prompt_tokens,omitempty"`

	TotalTokS      float64 `json:"total_tok_s,omitempty"`
	PerRequestTokS float64 `json:"per_request_tok_s,omitempty"`
	TTFTMs         float64 `json:"ttft_ms,omitempty"`
	TBTMs          float64 `json:"tbt_ms,omitempty"`
	// The …CI95 figures are the half-widths of 95% confidence intervals
	// (METHOD.md: Uncertainty): the figure lies in [x − h, x + h] with 95%
	// confidence. 0 (left out of JSON) means too little data to say, or a
	// run measured before RigBench reported uncertainty.
	PromptTokSCI95     float64 `json:"prompt_tok_s_ci95,omitempty"`
	TotalTokSCI95      float64 `json:"total_tok_s_ci95,omitempty"`
	PerRequestTokSCI95 float64 `json:"per_request_tok_s_ci95,omitempty"`
	TTFTMsCI95         float64 `json:"ttft_ms_ci95,omitempty"`
	TBTMsCI95          float64 `json:"tbt_ms_ci95,omitempty"`
	TTFTP90Ms          float64 `json:"ttft_p90_ms,omitempty"`
	TTFTP99Ms          float64 `json:"ttft_p99_ms,omitempty"`
	TBTP90Ms           float64 `json:"tbt_p90_ms,omitempty"`
	TBTP99Ms           float64 `json:"tbt_p99_ms,omitempty"`
	AvgActive          float64 `json:"avg_active,omitempty"`

	CompletedRequests int     `json:"completed_requests,omitempty"`
	OutputTokens      int     `json:"output_tokens,omitempty"`
	MeasuredS         float64 `json:"measured_s,omitempty"`
	// TokenCountSource says where OutputTokens came from (Tokens… consts).
	TokenCountSource string `json:"token_count_source,omitempty"`
	// ChunkTokens is the count of content chunks, kept when it exceeds the
	// usage count by more than 1% (TokenCountMismatch is then true): a chunk
	// carries at least one token, so more chunks than tokens is a
	// discrepancy, while fewer is multi-token chunks.
	ChunkTokens        int  `json:"chunk_tokens,omitempty"`
	TokenCountMismatch bool `json:"token_count_mismatch,omitempty"`
	// RooflinePct is a decode cell's achieved memory bandwidth in percent
	// of the card's peak (METHOD.md: Roofline); 0 (absent) when an input
	// is unknown (Server.Roofline says which).
	RooflinePct float64 `json:"roofline_pct,omitempty"`
	CellChecks
	CellWindow
	CellSpec
	CellBurst

	// ServerStats summarises the /metrics samples; nil when the server has no
	// metrics (figures unavailable, not zero).
	ServerStats *ServerStats `json:"server_stats,omitempty"`
	// GPUStats summarises NVML telemetry; nil without a GPU.
	GPUStats *hardware.GPUStats `json:"gpu_stats,omitempty"`
	// EnergyJPerToken = mean power × window / output tokens.
	EnergyJPerToken float64 `json:"energy_j_per_token,omitempty"`

	ServerSamples []ServerSample       `json:"server_samples,omitempty"`
	GPUSamples    []hardware.GPUSample `json:"gpu_samples,omitempty"`

	StartedAt time.Time `json:"started_at,omitzero"`
	// WindowStart is when the decode window opened: at steady state, RampS
	// after the first send (or at the first send in runs before steady
	// state); the window ends D seconds later.
	WindowStart time.Time `json:"window_start,omitzero"`
}

// Label names a cell the way the matrix labels it: "decode 16K×8".
func (c *Cell) Label() string { return string(c.Phase) + " " + c.Name() }

// Name is a cell's context and concurrency, "16K×8", as every table,
// sentence, progress line and legend names one phase's cells.
func (c *Cell) Name() string { return CellName(c.Context, c.Concurrency) }

// CellName is Cell.Name for a context and a concurrency that are not (yet)
// a Cell: a planned cell, a sweep's objective, a chart's point. It is the
// one spelling of "16K×8" (no spaces: METHOD.md's, and what the Tune
// objective reads back); nothing else formats a cell's name.
func CellName(context, concurrency int) string {
	return ContextLabel(context) + "×" + strconv.Itoa(concurrency)
}

// ServerSample is one /metrics scrape during a window. T is seconds since
// the window opened; the first sample is the baseline taken just before it
// (T ≤ 0), which counters are measured from and gauges leave out. Counters
// are cumulative as the server reports them.
//
// The KV and cache figures are nil (absent from JSON) where the server does
// not expose them (Server.NotReported), never 0: llama-server has no KV
// usage, prefix-cache or preemption metric, and a 0 there read as an idle
// cache (issue 30 item 3). The queue gauges are present in every sample:
// a server without them is not sampled for them (NotReportedQueue) and
// its running and waiting read 0.
type ServerSample struct {
	T                  float64  `json:"t"`
	Running            float64  `json:"running"`
	Waiting            float64  `json:"waiting"`
	KVUsage            *float64 `json:"kv_usage,omitempty"` // 0–1
	PrefixCacheQueries *float64 `json:"prefix_cache_queries,omitempty"`
	PrefixCacheHits    *float64 `json:"prefix_cache_hits,omitempty"`
	Preemptions        *float64 `json:"preemptions,omitempty"`
}

// Reported returns a figure a server reported, as ServerSample holds it:
// &v when has, else nil (not reported).
func Reported(v float64, has bool) *float64 {
	if !has {
		return nil
	}
	return &v
}

// Value is a sample figure, 0 where it is absent: for sums and maxima
// over samples, which Reported already kept apart.
func Value(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

// ServerStats summarises a cell's server samples.
type ServerStats struct {
	Samples     int     `json:"samples"`
	RunningMean float64 `json:"running_mean"`
	WaitingMax  float64 `json:"waiting_max"`
	// KV usage, hit rate and preemptions are absent where the server does
	// not report them (Server.NotReported), never written as 0.
	KVUsageMean float64 `json:"kv_usage_mean,omitempty"`
	KVUsageMax  float64 `json:"kv_usage_max,omitempty"`
	// PrefixHitRate is Δhits / Δqueries over the window (0 when no queries).
	PrefixHitRate float64 `json:"prefix_hit_rate,omitempty"`
	// Preemptions is Δ of vllm:num_preemptions_total over the window.
	Preemptions float64 `json:"preemptions,omitempty"`
}

// CellWindow is how a decode cell's window opened (METHOD.md: Decode
// cells, step 3) and RigBench's own chunk-gap figure: fields of runs with
// steady-state windows, zero (and absent from JSON) in older ones.
type CellWindow struct {
	// RampS is how long (card seconds) the cell took from the first send
	// to the window's opening: the ramp to steady state, excluded from
	// total tok/s (0 for windows that opened at the first send).
	RampS float64 `json:"ramp_s,omitempty"`
	// Readiness says what held when the window opened
	// ("streams_with_tokens=16/16, running_reqs=16/16, queue_reqs=0"), or,
	// with WarmupTimedOut, what did not.
	Readiness string `json:"readiness,omitempty"`
	// WarmupTimedOut is true when steady state did not come within
	// SteadyLimit and the window opened anyway.
	WarmupTimedOut bool `json:"warmup_timed_out,omitempty"`
	// ChunkGapMs is RigBench's own figure beside TBT: the median gap
	// between consecutive content chunks inside the window, each divided
	// by the tokens its chunk carried (the tbt_ms of runs before steady
	// state). tbt_ms is the seed tool's inter-token latency per request.
	ChunkGapMs float64 `json:"chunk_gap_ms,omitempty"`
	// PerRequestTokSWindow and TBTMsWindow are per_request_tok_s and tbt_ms
	// over the window actually measured, kept where it did not last
	// ReferenceWindow: the headline figures are then what a window of
	// ReferenceWindow reads (METHOD.md: Decode cells, step 4). Absent when
	// the window lasted ReferenceWindow (the headline is that figure), in a
	// cancelled cell, and in older runs.
	PerRequestTokSWindow float64 `json:"per_request_tok_s_window,omitempty"`
	TBTMsWindow          float64 `json:"tbt_ms_window,omitempty"`
	// ClientCPUPct is RigBench's own CPU use during the window, in percent
	// of the machine's cores (100: all of them); 0 when not measured (the
	// demo's simulator runs in RigBench's process, and its work would
	// count). Near 100 the client, not the server, may set the pace.
	ClientCPUPct float64 `json:"client_cpu_pct,omitempty"`
	// ClientLagS is how far, at most, the client fell behind the server's
	// clock while it read the cell's streams, in card seconds: the latest
	// a chunk was read after the server stamped it (RigBench's simulator
	// stamps every chunk; docs/simulator.md). Figures are placed by the
	// stamps, so a lag does not move them; it is the evidence of a client
	// that could not keep up (the note says so from a tenth of the
	// window). 0 (absent) for servers that tell no clock and older runs.
	ClientLagS float64 `json:"client_lag_s,omitempty"`
}
