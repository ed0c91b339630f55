// Package vllm knows vLLM's command line and start-up log: the catalog of
// launch flags a user can edit in a form, the launch configuration and its
// rendering to `vllm serve …` and `docker run …` lines (and parsing back),
// validation with messages a user understands, presets, and recognisers for
// the start-up log lines that report KV-cache capacity, readiness and fatal
// errors. Every vLLM wording RigBench matches lives in this package
// (see shared/VLLM.md), so a new vLLM release is a change in one place.
//
// The package is pure: no Docker, no network, no files. engine/docker runs
// what it renders.
package vllm
