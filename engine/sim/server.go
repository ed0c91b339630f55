package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"
)

// Server is a simulated vLLM server: an engine core driven in real time and
// the HTTP handlers in front of it. Create it with New, serve Handler, and
// Close it when done.
type Server struct {
	cfg         Config
	prof        Profile
	kv          kvSizing
	maxModelLen int
	model       string
	speed       float64
	start       time.Time // real time of simulated time 0
	created     int64

	mu      sync.Mutex
	core    *core
	streams map[*seq]*stream
	truth   []*RequestRecord
	rng     *rand.Rand
	nextID  uint64
	closed  bool
	dead    bool
	// frozen is a process stopped where it stood (Freeze): connections
	// stay open, nothing is answered or streamed.
	frozen bool

	wake     chan struct{} // nudges the engine loop (cap 1)
	done     chan struct{} // closed by Close
	exited   chan struct{} // closed when the exit fault fires
	loopDone chan struct{}
	exitT    *time.Timer
	once     sync.Once

	// boot is this start's simulated start-up (startup.go).
	boot boot

	// pers holds what the llama-server and SGLang personalities count
	// beyond vLLM's counters, and the idle-connection closer's state.
	pers persState

	// loss is this launch's quality loss and lossSalt its draws' salt, 0
	// when lossless (quality.go).
	loss     Loss
	lossSalt uint64
}

// stream is the handler side of one request, guarded by Server.mu.
type stream struct {
	sq        *seq
	published int  // tokens the engine has released to the client
	finished  bool // the engine finished the request
	notify    chan struct{}
	rec       *RequestRecord
	// stamped is set by a handler that stamps its chunks (clock.go): the
	// engine then keeps each step's release in steps until it is taken.
	stamped bool
	steps   []stepOut
	// firstAt and lastAt are the simulated times of the first and the
	// latest token published, for a handler that stamps its chunks only
	// after the engine released some (a busy machine starts it late).
	firstAt, lastAt float64
	// sent is when the client sent the request, in simulated time: the
	// arrival the clock headers tell (arrive).
	sent float64
	// quality is the request's answer and divergence (quality.go); nil
	// for the plain words.
	quality *streamQuality
}

// New validates cfg like vLLM's start-up does (KV cache sizing, the
// max_model_len check, scheduler limits) and starts the engine loop. Its
// errors are vLLM's own messages ("ValueError: To serve at least one request
// with the model's max seq len (…) … the estimated maximum model length is
// N. …"), which cmd/rigbench-sim prints before exiting with status 1.
func New(cfg Config) (*Server, error) {
	cfg, kv, err := size(cfg)
	if err != nil {
		return nil, err
	}
	p := cfg.Profile
	b, err := openCompileCache(cfg)
	if err != nil {
		return nil, err
	}
	s := &Server{
		boot: b,
		cfg:  cfg, prof: p, kv: kv, maxModelLen: cfg.MaxModelLen, model: cfg.Model, speed: cfg.Speed,
		start:    time.Now(),
		streams:  make(map[*seq]*stream),
		rng:      rand.New(rand.NewPCG(uint64(cfg.Seed), 0x5eed)),
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		exited:   make(chan struct{}),
		loopDone: make(chan struct{}),
	}
	s.created = s.start.Unix()
	s.loss, s.lossSalt = launchLoss(p, cfg.KVCacheDtype, cfg.Quantization)
	s.core = newCore(p, limits{
		maxNumSeqs:          cfg.MaxNumSeqs,
		maxNumBatchedTokens: cfg.MaxNumBatchedTokens,
		prefixCaching:       cfg.EnablePrefixCaching && cfg.Personality != PersonalityLlama,
		blockSize:           p.BlockSize,
		maxModelLen:         cfg.MaxModelLen,
		failOnFull:          cfg.Personality == PersonalityLlama,
	}, kv.numBlocks)
	if cfg.Personality == PersonalityLlama {
		s.core.slots = newSlotCache(cfg.Llama.Slots)
		s.core.cold = newColdStart(llamaColdShare)
	}
	s.core.spec = cfg.Speculative
	if cfg.Noise > 0 {
		s.core.noise = &stepNoise{sigma: cfg.Noise, rng: rand.New(rand.NewPCG(uint64(cfg.Seed), 0x2015e))}
	}
	if cfg.Faults.ExitAfter > 0 {
		s.exitT = time.AfterFunc(s.realDuration(cfg.Faults.ExitAfter.Seconds()), s.kill)
	}
	go s.loop()
	return s, nil
}

// size fills cfg's defaults from the profile and validates and sizes it
// like vLLM's start-up (the scheduler limits, the KV cache, the
// max_model_len check): everything New does before it serves.
func size(cfg Config) (Config, kvSizing, error) {
	cfg = WithDefaults(cfg)
	p := cfg.Profile
	if cfg.Speed == 0 {
		cfg.Speed = 1
	}
	if cfg.Host == "" {
		cfg.Host = "0.0.0.0"
	}
	if err := validate(&cfg); err != nil {
		return cfg, kvSizing{}, err
	}
	if err := applyPersonality(&cfg); err != nil {
		return cfg, kvSizing{}, err
	}
	tp, pp := parallelSize(cfg)
	var err error
	if cfg.RayPlacement != nil {
		p, err = clusterProfile(p, tp, pp, *cfg.RayPlacement, cfg.Network)
	} else {
		p, err = parallelProfile(p, tp, pp)
	}
	if err != nil {
		return cfg, kvSizing{}, err
	}
	cfg.Profile = p
	kv, err := sizeKV(p, cfg.GPUMemoryUtilization, cfg.KVCacheDtype)
	if err != nil {
		return cfg, kv, err
	}
	if cfg.Personality == PersonalityLlama {
		kv = llamaKV(cfg, p.BlockSize)
	}
	if err := checkMaxModelLen(kv, cfg.MaxModelLen); err != nil {
		return cfg, kv, err
	}
	return cfg, kv, nil
}

// WithDefaults is cfg with what its command line left out taken from its
// profile (the default profile when none), as vLLM fills it from the card
// and the model: the model, max_num_seqs, max_num_batched_tokens,
// gpu_memory_utilization, the cache dtype ("auto") and max_model_len (the
// model's own). engine/predict sizes a launch with the same values.
func WithDefaults(cfg Config) Config {
	if cfg.Profile.Name == "" {
		cfg.Profile = DefaultProfile()
	}
	p := cfg.Profile
	if cfg.Model == "" {
		cfg.Model = p.Model
	}
	if cfg.MaxNumSeqs == 0 {
		cfg.MaxNumSeqs = p.DefaultMaxNumSeqs
	}
	if cfg.MaxNumBatchedTokens == 0 {
		cfg.MaxNumBatchedTokens = p.DefaultMaxNumBatchedTokens
	}
	if cfg.GPUMemoryUtilization == 0 {
		cfg.GPUMemoryUtilization = p.DefaultGPUMemoryUtilization
	}
	if cfg.KVCacheDtype == "" {
		cfg.KVCacheDtype = "auto"
	}
	if cfg.MaxModelLen == 0 {
		cfg.MaxModelLen = p.ModelMaxLen
	}
	return cfg
}

// Facts is what a server for cfg would report, computed without starting
// one: its max_model_len and KV capacity in tokens. Its error is the one New
// would return. The app's demo target and the tuner predict the plan with
// it.
func Facts(cfg Config) (maxModelLen, kvCapacityTokens int, err error) {
	cfg, kv, err := size(cfg)
	if err != nil {
		return 0, 0, err
	}
	return cfg.MaxModelLen, kv.tokens, nil
}

// validate applies vLLM's checks of the scheduler and cache settings.
func validate(cfg *Config) error {
	p := cfg.Profile
	switch {
	case cfg.MaxModelLen == 0:
		cfg.MaxModelLen = p.ModelMaxLen
	case cfg.MaxModelLen > p.ModelMaxLen:
		return fmt.Errorf("ValueError: User-specified max_model_len (%d) is greater than the derived max_model_len "+
			"(max_position_embeddings=%d or model_max_length=None in model's config.json). To allow overriding this "+
			"maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.", cfg.MaxModelLen, p.ModelMaxLen)
	}
	if !(cfg.GPUMemoryUtilization > 0 && cfg.GPUMemoryUtilization <= 1) {
		return fmt.Errorf("ValueError: GPU memory utilization must be within (0, 1]. Got %g.", cfg.GPUMemoryUtilization)
	}
	if cfg.MaxNumSeqs < 1 {
		return fmt.Errorf("ValueError: max_num_seqs (%d) must be at least 1.", cfg.MaxNumSeqs)
	}
	if cfg.MaxNumBatchedTokens < cfg.MaxNumSeqs {
		return fmt.Errorf("ValueError: max_num_batched_tokens (%d) must be greater than or equal to max_num_seqs (%d).",
			cfg.MaxNumBatchedTokens, cfg.MaxNumSeqs)
	}
	if math.IsNaN(cfg.Speed) || cfg.Speed < 1 {
		return fmt.Errorf("the speed factor must be 1 or more (got %g)", cfg.Speed)
	}
	if !(cfg.Faults.ErrorRate >= 0 && cfg.Faults.ErrorRate <= 1) {
		return fmt.Errorf("the fault error rate must be between 0 and 1 (got %g)", cfg.Faults.ErrorRate)
	}
	return nil
}

// KVCapacityTokens is the KV cache size in tokens (num_gpu_blocks × block
// size), what vLLM logs as "GPU KV cache size".
func (s *Server) KVCapacityTokens() int { return s.kv.tokens }

// MaxModelLen is the served max_model_len.
func (s *Server) MaxModelLen() int { return s.maxModelLen }

// Model is the served model id.
func (s *Server) Model() string { return s.model }

// Exited is closed when the exit fault fires (the simulated engine died);
// cmd/rigbench-sim exits with status 1 then, as vLLM does.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// Truth returns a copy of the record of every request served so far.
func (s *Server) Truth() []RequestRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RequestRecord, len(s.truth))
	for i, r := range s.truth {
		out[i] = r.clone()
	}
	return out
}

// Close stops the engine loop and ends every open stream. It is safe to
// call more than once.
func (s *Server) Close() {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		if s.exitT != nil {
			s.exitT.Stop()
		}
		for _, st := range s.streams {
			signal(st.notify)
		}
		s.mu.Unlock()
		close(s.done)
		<-s.loopDone
	})
}

// Kill fires the exit fault now (--fault-exit-after's death at a moment a
// test chooses: a given point of a given cell): streams break, every later
// connection is closed unanswered, Exited closes.
func (s *Server) Kill() { s.kill() }

// Freeze stops the server where it stands, as `kill -STOP` of its process,
// `docker pause` of its container, a hung GPU or a deadlocked collective
// would: every connection stays open, but no stream sends another byte and
// no request (/health and /metrics included) is answered until the client
// gives up or the server is closed. It does not thaw: a test that freezes a
// server measures what the client makes of the silence.
func (s *Server) Freeze() {
	s.mu.Lock()
	s.frozen = true
	s.mu.Unlock()
}

// kill is the exit fault: the engine dies, streams break.
func (s *Server) kill() {
	s.mu.Lock()
	if s.dead || s.closed {
		s.mu.Unlock()
		return
	}
	s.dead = true
	for _, st := range s.streams {
		signal(st.notify)
	}
	s.mu.Unlock()
	close(s.exited)
	signal(s.wake)
}

// signal does a non-blocking send on a capacity-1 channel.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// simNow maps the wall clock to simulated seconds.
func (s *Server) simNow() float64 {
	return s.simAt(time.Now())
}

// SimAt maps a wall-clock instant to the simulator's clock, in simulated
// seconds (0 at an infinite speed, which has no clock): a test turns a
// client's instant into the card time at which the chunks it read were
// stamped. A client that places chunks by their stamps (engine/client)
// puts a chunk stamped t at the wall instant that SimAt maps back to t.
func (s *Server) SimAt(t time.Time) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.simAt(t)
}

// simAt maps a wall-clock instant to simulated seconds.
func (s *Server) simAt(t time.Time) float64 {
	if math.IsInf(s.speed, 1) {
		return 0
	}
	return t.Sub(s.start).Seconds() * s.speed
}

// realAt is the wall-clock deadline of simulated time t: an absolute
// deadline from the start, so rounding never accumulates into drift.
func (s *Server) realAt(t float64) time.Time {
	return s.start.Add(s.realDuration(t))
}

// realDuration maps simulated seconds to a real duration (÷ speed).
func (s *Server) realDuration(t float64) time.Duration {
	if math.IsInf(s.speed, 1) {
		return 0
	}
	return time.Duration(t / s.speed * float64(time.Second))
}

// ready reports whether the simulated start-up delay has passed.
func (s *Server) ready() bool {
	return time.Now().After(s.start.Add(s.realDuration(s.cfg.StartupDelay.Seconds() + s.boot.waitS())))
}

// Handler returns the HTTP API: /health, /version, /v1/models, /tokenize,
// /v1/completions, /v1/chat/completions, /metrics and /debug/truth (or the
// personality's own set).
func (s *Server) Handler() http.Handler {
	switch s.cfg.Personality {
	case PersonalityLlama:
		return s.guard(s.llamaMux())
	case PersonalitySGLang:
		return s.guard(s.sglangMux())
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", s.handleHealth)
	mux.HandleFunc("GET /version", s.handleVersion)
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("POST /tokenize", s.handleTokenize)
	mux.HandleFunc("POST /v1/completions", s.handleCompletions)
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("GET /metrics", s.handleMetrics)
	mux.HandleFunc("GET /debug/truth", s.handleTruth)
	return s.guard(mux)
}

// guard answers 503 while starting or after the engine died, and 401 on
// /v1/* without the right "Authorization: Bearer KEY" (vLLM checks only the
// /v1 routes).
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		dead, frozen := s.dead, s.frozen
		s.mu.Unlock()
		if frozen {
			// A stopped process: the kernel took the connection, nothing reads it.
			select {
			case <-r.Context().Done():
			case <-s.done:
			}
			return
		}
		if dead {
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					conn.Close() // a dead process answers nothing
					return
				}
			}
			writeError(w, http.StatusServiceUnavailable, "ServiceUnavailableError", "The engine is not running.")
			return
		}
		if !s.ready() {
			writeError(w, http.StatusServiceUnavailable, "ServiceUnavailableError", "The server is starting.")
			return
		}
		if s.cfg.APIKey != "" && len(r.URL.Path) >= 3 && r.URL.Path[:3] == "/v1" {
			if r.Header.Get("Authorization") != "Bearer "+s.cfg.APIKey {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				w.Write([]byte(`{"error":"Unauthorized"}`))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) }

func (s *Server) handleVersion(w http.ResponseWriter, r *http.Request) {
	v := map[string]any{"version": s.prof.VLLMVersion + "-sim", "simulated": true}
	// The speed factor lets a client convert what it measures back to the
	// simulated card's time (unthrottled, +Inf, has no such conversion).
	if sp := s.cfg.Speed; sp >= 1 && !math.IsInf(sp, 0) {
		v["speed"] = sp
	}
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data": []map[string]any{{
			"id": s.model, "object": "model", "created": s.created, "owned_by": "vllm",
			"root": s.model, "parent": nil, "max_model_len": s.maxModelLen,
		}},
	})
}

func (s *Server) handleTruth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Truth())
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// writeError writes vLLM's error body: {"error":{"message","type","param","code"}}.
func writeError(w http.ResponseWriter, code int, typ, msg string) {
	writeJSON(w, code, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}})
}
