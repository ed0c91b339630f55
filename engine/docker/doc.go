// Package docker runs vLLM (or RigBench's simulator image) in a container
// through the Docker Engine API: daemon checks with errors a user can act on,
// image presence and pulls with per-layer progress, creating the container
// with GPUs, the Hugging Face cache and a loopback-only port, streaming its
// log to observers, waiting until it serves the model, explaining start-up
// failures, and always stopping and removing what it started.
//
// It talks to the daemon through the API interface (the subset of
// *client.Client it uses), so error paths are testable with fakes while the
// integration tests use the real daemon.
package docker
