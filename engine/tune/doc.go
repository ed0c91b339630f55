// Package tune runs a sweep: the same workload against one launch
// configuration after another (the base launch plus variants of its vLLM
// flags), each launched through engine/session and saved as an ordinary run
// tagged with the sweep's id, then scores every variant on one objective and
// says in a sentence or two which flags made the card fastest.
//
// The CLI (`rigbench-cli tune`) and the app's Tune view are two front ends of
// Runner; neither orchestrates on its own. The package never imports the
// history store: the caller passes an observer per variant to record runs and
// a History that finds a sweep's finished runs to resume it.
package tune
