// Package session owns every sequence and policy both front ends need, so
// the CLI and the app behave the same and both get every fix:
//   - Run: one benchmark end to end: connect to an endpoint, start the
//     simulator, or launch vLLM in Docker; take the hardware snapshot;
//     sample telemetry; run the plan; stop what it started. Each front end
//     calls it with its own observers (the history store is one).
//   - DockerLauncher.Launch: the one Docker launch sequence (leftovers,
//     image, start, readiness, facts), used by Run, the app's Launch view
//     and `rigbench-cli launch`; Server is the one type of a running
//     server, and CheckDocker the daemon check.
//   - The plan policies: Facts, Predict and Estimate (the plan preview),
//     DemoFacts (the demo's limits without starting it), and CheckPlan's
//     typed *NothingRunsError, which each front end words in its terms.
package session
