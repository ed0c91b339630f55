// Package session runs one benchmark end to end: connect to an endpoint,
// start the simulator, or launch vLLM in Docker; take the hardware snapshot;
// sample telemetry; run the plan; stop what it started. The CLI and the app
// both call Run with their own observers (the history store is one), so
// "launch, wait, run, record, stop" is written once.
package session
