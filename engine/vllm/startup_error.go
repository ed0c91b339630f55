package vllm

import (
	"fmt"
	"math"
	"regexp"
	"strings"
)

// ErrorKind names a recognised start-up failure.
type ErrorKind string

// Start-up failures (shared/VLLM.md, "Fatal").
const (
	ErrOutOfMemory           ErrorKind = "out_of_memory"
	ErrFreeMemory            ErrorKind = "free_memory_below_utilization"
	ErrNoCacheMemory         ErrorKind = "no_kv_cache_memory"
	ErrMaxModelLen           ErrorKind = "max_model_len_above_kv_cache"
	ErrMaxModelLenAboveModel ErrorKind = "max_model_len_above_model_limit"
	ErrQuantizationGPU       ErrorKind = "quantization_unsupported_gpu"
	ErrNoAttentionBackend    ErrorKind = "no_attention_backend"
	ErrGatedModel            ErrorKind = "gated_model"
	ErrModelNotFound         ErrorKind = "model_not_found"
	ErrArchitecture          ErrorKind = "architecture_unsupported"
	ErrTrustRemoteCode       ErrorKind = "trust_remote_code_needed"
	ErrUnknownArgument       ErrorKind = "unrecognized_argument"
	ErrInvalidArgumentValue  ErrorKind = "invalid_argument_value"
	ErrNoGPU                 ErrorKind = "no_gpu_visible"
)

// StartupError is a recognised fatal start-up failure: what went wrong in one
// plain sentence, and what to change.
type StartupError struct {
	Kind ErrorKind `json:"kind"`
	// Explanation says what happened, in the user's terms.
	Explanation string `json:"explanation"`
	// Fix says what to change ("try --max-model-len 44320").
	Fix string `json:"fix"`
	// Line is the log line it was recognised in.
	Line string `json:"line"`
	// SuggestedMaxModelLen is the longest context that fits, when vLLM said.
	SuggestedMaxModelLen int `json:"suggested_max_model_len,omitempty"`
	// SuggestedGPUMemoryUtilization is a utilisation that fits the free
	// memory, when vLLM reported it.
	SuggestedGPUMemoryUtilization float64 `json:"suggested_gpu_memory_utilization,omitempty"`
	// Argument is the flag vLLM refused (unknown or invalid).
	Argument string `json:"argument,omitempty"`
	// priority ranks errors when several lines match: the most specific wins.
	priority int
}

func (e *StartupError) Error() string { return e.Explanation + ": " + e.Fix }

// errorRule is one recognisable failure. build fills the error from the
// regexp's submatches.
type errorRule struct {
	// anchors: the rule runs only on lines holding one of these literals.
	anchors  []string
	re       *regexp.Regexp
	priority int
	build    func(m []string) *StartupError
}

var errorRules = []errorRule{
	{[]string{"estimated maximum model length"}, regexp.MustCompile(`estimated maximum model length is\s*` + num), 90, func(m []string) *StartupError {
		n := atoi(m[1])
		return &StartupError{Kind: ErrMaxModelLen, SuggestedMaxModelLen: n,
			Explanation: "max model length too large for this card's KV cache",
			Fix:         fmt.Sprintf("try --max-model-len %d", n)}
	}},
	{[]string{"max seq len"}, regexp.MustCompile(`max seq len \(` + num + `\) is larger than the maximum number of tokens that can be stored in KV cache \(` + num + `\)`), 85, func(m []string) *StartupError {
		n := atoi(m[2])
		return &StartupError{Kind: ErrMaxModelLen, SuggestedMaxModelLen: n,
			Explanation: fmt.Sprintf("max model length %s too large for this card's KV cache", m[1]),
			Fix:         fmt.Sprintf("try --max-model-len %d", n)}
	}},
	{[]string{"User-specified max_model_len"}, regexp.MustCompile(`User-specified max_model_len \(` + num + `\) is greater than the derived max_model_len \((?:max_position_embeddings=)?` + num), 88, func(m []string) *StartupError {
		n := atoi(m[2])
		return &StartupError{Kind: ErrMaxModelLenAboveModel, SuggestedMaxModelLen: n,
			Explanation: fmt.Sprintf("max model length %s is above the model's own limit of %d tokens", m[1], n),
			Fix:         fmt.Sprintf("try --max-model-len %d", n)}
	}},
	{[]string{"Free memory on device"}, regexp.MustCompile(`Free memory on device \(` + dec + `/` + dec + ` GiB\) on startup is less than desired GPU memory utilization \(` + dec + `, ` + dec + ` GiB\)`), 80, func(m []string) *StartupError {
		free, total := atof(m[1]), atof(m[2])
		// Leave 2 points of headroom below what is free now, rounded down
		// to a hundredth, since other processes' use moves a little.
		s := 0.0
		if total > 0 {
			s = math.Floor(free/total*100)/100 - 0.02
		}
		e := &StartupError{Kind: ErrFreeMemory,
			Explanation: fmt.Sprintf("only %s of %s GiB on the card is free, less than --gpu-memory-utilization %s asks for", m[1], m[2], m[3])}
		if s > 0.05 {
			e.SuggestedGPUMemoryUtilization = s
			e.Fix = fmt.Sprintf("try --gpu-memory-utilization %.2f, or close what else uses the card", s)
		} else {
			e.Fix = "close the other programs using the card (see nvidia-smi) and start again"
		}
		return e
	}},
	{[]string{"quantization method"}, regexp.MustCompile(`The quantization method (\S+) is not supported for the current GPU\. Minimum capability: (\d+)\. Current capability: (\d+)`), 80, func(m []string) *StartupError {
		return &StartupError{Kind: ErrQuantizationGPU,
			Explanation: fmt.Sprintf("this card (compute capability %s) is too old for %s quantisation, which needs %s", capability(m[3]), m[1], capability(m[2])),
			Fix:         "pick a model with another quantisation (or none), or remove --quantization"}
	}},
	{[]string{"No available memory"}, regexp.MustCompile(`No available memory for the cache blocks`), 70, func([]string) *StartupError {
		return &StartupError{Kind: ErrNoCacheMemory,
			Explanation: "the model's weights leave no memory on the card for the KV cache",
			Fix:         "raise --gpu-memory-utilization, or pick a smaller or quantised model"}
	}},
	{[]string{"OutOfMemoryError", "out of memory"}, regexp.MustCompile(`(?:OutOfMemoryError|CUDA out of memory)`), 60, func([]string) *StartupError {
		return &StartupError{Kind: ErrOutOfMemory,
			Explanation: "the card ran out of memory while loading the model",
			Fix:         "lower --gpu-memory-utilization or --max-model-len, add --enforce-eager, or pick a smaller or quantised model"}
	}},
	{[]string{"No valid attention backend"}, regexp.MustCompile(`No valid attention backend found`), 70, func([]string) *StartupError {
		return &StartupError{Kind: ErrNoAttentionBackend,
			Explanation: "vLLM found no attention kernel that runs this model on this card",
			Fix:         "try --attention-backend TRITON_ATTN or FLEX_ATTENTION, or --dtype half on cards older than Ampere"}
	}},
	{[]string{"gated repo", "401 Client Error", "GatedRepoError"}, regexp.MustCompile(`Cannot access gated repo|401 Client Error|GatedRepoError`), 75, func([]string) *StartupError {
		return &StartupError{Kind: ErrGatedModel,
			Explanation: "the model is gated and no Hugging Face token with access was given",
			Fix:         "accept the model's licence on its Hugging Face page, then give RigBench your token (HF_TOKEN)"}
	}},
	{[]string{"Invalid repository ID", "Repository Not Found", "RepositoryNotFoundError"}, regexp.MustCompile(`Invalid repository ID or local directory specified|Repository Not Found|RepositoryNotFoundError`), 75, func([]string) *StartupError {
		return &StartupError{Kind: ErrModelNotFound,
			Explanation: "no model with this id exists on Hugging Face",
			Fix:         "check the model id's spelling (owner/name, as on its Hugging Face page)"}
	}},
	{[]string{"Model architectures"}, regexp.MustCompile(`Model architectures \[([^\]]*)\] are not supported`), 75, func(m []string) *StartupError {
		arch := strings.Trim(m[1], `'" `)
		return &StartupError{Kind: ErrArchitecture,
			Explanation: fmt.Sprintf("this vLLM version cannot run the %s architecture", arch),
			Fix:         "pick a newer image tag, or another model"}
	}},
	{[]string{"trust_remote_code", "trust-remote-code"}, regexp.MustCompile("trust_remote_code=True|--trust-remote-code"), 65, func([]string) *StartupError {
		return &StartupError{Kind: ErrTrustRemoteCode,
			Explanation: "the model needs its own Python code to load",
			Fix:         "turn on --trust-remote-code if you trust the model's authors"}
	}},
	{[]string{"unrecognized arguments"}, regexp.MustCompile(`unrecognized arguments: (.+)$`), 95, func(m []string) *StartupError {
		arg := strings.TrimSpace(m[1])
		return &StartupError{Kind: ErrUnknownArgument, Argument: arg,
			Explanation: fmt.Sprintf("the vLLM in this image does not know %s", arg),
			Fix:         "remove it, or pick an image tag that has it"}
	}},
	{[]string{"argument "}, regexp.MustCompile(`argument (\S+?):? invalid (?:choice|\w+ value): (.+)$`), 95, func(m []string) *StartupError {
		return &StartupError{Kind: ErrInvalidArgumentValue, Argument: strings.TrimSuffix(m[1], ":"),
			Explanation: fmt.Sprintf("the vLLM in this image refuses the value of %s (%s)", strings.TrimSuffix(m[1], ":"), strings.TrimSpace(m[2])),
			Fix:         "pick one of the values it lists, or another image tag"}
	}},
	{[]string{"Failed to infer device type", "NVIDIA driver", "CUDA-capable device"}, regexp.MustCompile(`Failed to infer device type|Found no NVIDIA driver|no CUDA-capable device is detected`), 70, func([]string) *StartupError {
		return &StartupError{Kind: ErrNoGPU,
			Explanation: "the container sees no NVIDIA GPU",
			Fix:         "install the NVIDIA driver and container toolkit, and launch with GPUs set to all"}
	}},
}

// capability renders "75" as "7.5".
func capability(s string) string {
	if len(s) < 2 {
		return s
	}
	return s[:len(s)-1] + "." + s[len(s)-1:]
}

// recognizeError matches the fatal lines; the highest-priority rule wins.
func recognizeError(line string) *StartupError {
	var best *StartupError
	for _, r := range errorRules {
		if best != nil && r.priority <= best.priority || !containsAny(line, r.anchors) {
			continue
		}
		if m := r.re.FindStringSubmatch(line); m != nil {
			best = r.build(m)
			best.priority = r.priority
			best.Line = line
		}
	}
	return best
}

// Recognize reads one log line. It returns the fact the line tells, or the
// fatal start-up error it reports, or neither (a zero Fact and nil).
func Recognize(line string) (Fact, *StartupError) {
	if e := recognizeError(line); e != nil {
		return Fact{}, e
	}
	return recognizeFact(line), nil
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
