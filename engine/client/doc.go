// Package client speaks the OpenAI-compatible HTTP API of an inference
// server (vLLM, llama.cpp's llama-server, SGLang, the RigBench simulator):
// streaming /v1/completions with per-chunk monotonic timestamps, /v1/models,
// /version, /tokenize, /health and the Prometheus /metrics page.
//
// It measures; it does not decide. Statistics live in engine/bench.
package client
