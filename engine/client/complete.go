package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// GreedyRequest is one non-streaming /v1/completions request at
// temperature 0, as a quality probe sends it: the answer is read whole,
// with its logprobs when asked for.
type GreedyRequest struct {
	Model     string
	Prompt    string
	MaxTokens int
	// Logprobs is how many top alternatives per token to ask for (vLLM's
	// completions "logprobs"); 0 asks for none.
	Logprobs int
}

// Logprobs is a completion's choices[].logprobs in vLLM's (and OpenAI's
// legacy completions) shape.
type Logprobs struct {
	Tokens        []string             `json:"tokens"`
	TokenLogprobs []float64            `json:"token_logprobs"`
	TopLogprobs   []map[string]float64 `json:"top_logprobs"`
	TextOffset    []int                `json:"text_offset"`
}

// GreedyAnswer is the answer to a GreedyRequest.
type GreedyAnswer struct {
	Text string
	// FinishReason is "stop" or "length" (max_tokens reached).
	FinishReason     string
	CompletionTokens int
	// Logprobs is nil when none were asked for or the server sent none.
	Logprobs *Logprobs
}

// maxAnswerBody bounds a whole answer: max_tokens of text with 20
// logprobs per token stays far below it.
const maxAnswerBody = 64 << 20

// Greedy sends req and returns the server's whole answer.
func (c *Client) Greedy(ctx context.Context, req GreedyRequest) (GreedyAnswer, error) {
	m := map[string]any{"model": req.Model, "prompt": req.Prompt, "max_tokens": req.MaxTokens, "temperature": 0, "stream": false}
	if req.Logprobs > 0 {
		m["logprobs"] = req.Logprobs
	}
	body, err := json.Marshal(m)
	if err != nil {
		return GreedyAnswer{}, err
	}
	hr, err := c.newRequest(ctx, http.MethodPost, "/v1/completions", bytes.NewReader(body))
	if err != nil {
		return GreedyAnswer{}, err
	}
	resp, err := c.do(hr)
	if err != nil {
		return GreedyAnswer{}, c.scrubErr(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBody))
	if err != nil {
		return GreedyAnswer{}, c.transportError(ctx, err)
	}
	var out struct {
		Choices []struct {
			Text         string    `json:"text"`
			FinishReason string    `json:"finish_reason"`
			Logprobs     *Logprobs `json:"logprobs"`
		} `json:"choices"`
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(c.scrubBytes(raw), &out); err != nil || len(out.Choices) == 0 {
		return GreedyAnswer{}, fmt.Errorf("%s/v1/completions answered something that is not a completion: is it an OpenAI-compatible server?", c.base.String())
	}
	ch := out.Choices[0]
	return GreedyAnswer{Text: ch.Text, FinishReason: ch.FinishReason, CompletionTokens: out.Usage.CompletionTokens, Logprobs: ch.Logprobs}, nil
}
