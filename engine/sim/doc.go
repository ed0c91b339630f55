// Package sim is a simulated vLLM server: a faithful stand-in for demo mode,
// tests and Docker tests on machines without a GPU.
//
// It speaks vLLM's HTTP surface (/health, /version, /v1/models, /tokenize,
// /v1/completions and /v1/chat/completions with SSE streaming and usage,
// /metrics with vLLM's metric names, prefill metrics included) and runs an
// engine model behind it: continuous batching up to max_num_seqs with a
// per-step token budget (chunked prefill shares steps with decode), a KV
// cache of 16-token blocks with prefix caching (chained block hashes, LRU
// eviction), a waiting queue and preemption by recompute.
// Each scheduler step costs simulated time from a Profile's time model; the
// engine runs in simulated time and is mapped onto the wall clock divided by
// a speed factor, so a 30 s window can be tested in 3 s.
//
// The engine core (core.go) never reads a clock: it is driven either by the
// real-time driver (driver.go) behind the HTTP server or, in tests, by a
// virtual clock, which is how the default profile is calibrated against the
// reference run in shared/reference.
package sim
