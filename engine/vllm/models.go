package vllm

// The models RigBench's simulator serves (engine/sim's profiles), spelled
// here, below engine/report: an import gives a model id read from a file
// name the spelling of a known one (report.NormaliseModel) without linking
// the simulator (issue 42 item 8). The profiles use these constants, and
// engine/sim's tests hold SimulatorModels to its profiles.
const (
	// ModelReference is the reference run's model (shared/reference),
	// served by the simulator's default profile and its dual-card one.
	ModelReference = "agents/a1-4b-fp8"
	// ModelH100 is the h100-80gb profiles' model.
	ModelH100 = "meta-llama/Llama-3.1-8B-Instruct"
	// ModelTiny is the tiny test profile's model.
	ModelTiny = "rigbench/tiny"
)

// SimulatorModels are the model ids of the simulator's profiles, without
// repeats: ids every import knows without any history.
func SimulatorModels() []string { return []string{ModelReference, ModelH100, ModelTiny} }
