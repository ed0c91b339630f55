package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// The simulated model's chat template is ChatML, as Qwen's models use it:
//
//	<|im_start|>{role}\n{content}<|im_end|>\n      for each message
//	<|im_start|>assistant\n                         the generation prompt
//
// The markers are one special token each (tokenizer.go) and the newlines
// are white space to the tokenizer, so a message adds 2 tokens plus its
// role's ("user" is one, "system" and "assistant" are 2 and 3) to its
// content's, and the generation prompt adds 4. The prompt the engine sees is
// the template's text tokenized without BOS (vLLM's chat default,
// add_special_tokens false), so usage.prompt_tokens counts the template's
// tokens, /tokenize with the same messages gives the same count, and the
// prefix cache matches chat requests that share their first messages.
// The markers imStart and imEnd are the tokenizer's (tokenizer.go).

// chatMessage is one message after parsing: a role and its text.
type chatMessage struct {
	Role    string
	Content string
}

// chatTemplate renders messages with the model's chat template; with
// addGenerationPrompt it ends with the assistant's turn opened.
func chatTemplate(msgs []chatMessage, addGenerationPrompt bool) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(imStart)
		b.WriteString(m.Role)
		b.WriteByte('\n')
		b.WriteString(m.Content)
		b.WriteString(imEnd)
		b.WriteByte('\n')
	}
	if addGenerationPrompt {
		b.WriteString(imStart)
		b.WriteString("assistant\n")
	}
	return b.String()
}

// parseMessages reads OpenAI's "messages": a list of objects with a role
// and a content that is a string, null, or a list of text parts
// ({"type":"text","text":…}). Other fields (name, tool_calls) are ignored;
// parts that are not text are refused, as a text-only model does.
func parseMessages(raw json.RawMessage) ([]chatMessage, error) {
	var list []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, errors.New("messages must be a list of objects with a role and a content")
	}
	out := make([]chatMessage, len(list))
	for i, m := range list {
		if m.Role == "" {
			return nil, fmt.Errorf("messages[%d] has no role", i)
		}
		text, err := messageContent(m.Content)
		if err != nil {
			return nil, fmt.Errorf("messages[%d].content: %w", i, err)
		}
		out[i] = chatMessage{Role: m.Role, Content: text}
	}
	return out, nil
}

// messageContent reads a message's content: a string, null (no text) or a
// list of text parts, joined with newlines as vLLM joins them.
func messageContent(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		return text, nil
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("must be a string or a list of content parts")
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.Type != "text" || p.Text == nil {
			return "", fmt.Errorf("content parts of type %q are not supported by this model (text only)", p.Type)
		}
		texts = append(texts, *p.Text)
	}
	return strings.Join(texts, "\n"), nil
}

// chatPrompt is the token ids of messages with the chat template applied:
// what the engine sees and what usage.prompt_tokens counts.
func chatPrompt(raw json.RawMessage, addGenerationPrompt, addSpecial bool) ([]uint32, error) {
	msgs, err := parseMessages(raw)
	if err != nil {
		return nil, err
	}
	return tokenize(chatTemplate(msgs, addGenerationPrompt), addSpecial), nil
}

// chatRequest is the part of vLLM's /v1/chat/completions body the
// simulator honours. max_completion_tokens, when given, wins over
// max_tokens, as in vLLM.
type chatRequest struct {
	genOptions
	Messages            json.RawMessage `json:"messages"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	AddGenerationPrompt *bool           `json:"add_generation_prompt"`
}

// prompt applies the template with the request's options (generation
// prompt on, no BOS, unless the request says otherwise).
func (c *chatRequest) prompt() ([]uint32, error) {
	if len(c.Messages) == 0 || string(c.Messages) == "null" {
		return nil, errors.New("messages must be provided")
	}
	return chatPrompt(c.Messages, c.AddGenerationPrompt == nil || *c.AddGenerationPrompt,
		c.AddSpecialTokens != nil && *c.AddSpecialTokens)
}

// handleChat serves /v1/chat/completions through the same generation path
// as /v1/completions (generate): same engine, same counters, same faults.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	arrived := s.arrive(r)
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestError", "The request body is not valid JSON: "+err.Error())
		return
	}
	if !s.knownModel(w, req.Model) {
		return
	}
	prompt, err := req.prompt()
	if err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestError", err.Error())
		return
	}
	if req.MaxCompletionTokens != nil {
		req.MaxTokens = req.MaxCompletionTokens
	}
	s.generate(w, r, arrived, prompt, req.genOptions, func(id string) responseShape {
		return chatShape{id: "chatcmpl-" + strings.TrimPrefix(id, "cmpl-"), model: s.model, created: s.created}
	})
}

// chatDelta is a stream chunk's delta: the role (first chunk only) and the
// new text.
type chatDelta struct {
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
}

type chatStreamChoice struct {
	Index        int       `json:"index"`
	Delta        chatDelta `json:"delta"`
	Logprobs     any       `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
	StopReason   any       `json:"stop_reason"`
}

type chatChunk struct {
	ID      string             `json:"id"`
	Object  string             `json:"object"`
	Created int64              `json:"created"`
	Model   string             `json:"model"`
	Choices []chatStreamChoice `json:"choices"`
	Usage   *usage             `json:"usage,omitempty"`
}

// chatMessageOut is the message of a non-streaming answer.
type chatMessageOut struct {
	Role             string `json:"role"`
	Content          string `json:"content"`
	ReasoningContent any    `json:"reasoning_content"`
	ToolCalls        []any  `json:"tool_calls"`
}

type chatChoice struct {
	Index        int            `json:"index"`
	Message      chatMessageOut `json:"message"`
	Logprobs     any            `json:"logprobs"`
	FinishReason string         `json:"finish_reason"`
	StopReason   any            `json:"stop_reason"`
}

type chatCompletion struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []chatChoice `json:"choices"`
	Usage   usage        `json:"usage"`
}

// chatShape is vLLM's chat answer: "chat.completion.chunk" objects with
// choices[].delta, a role chunk first ({"role":"assistant","content":""},
// with usage when usage is continuous), and a "chat.completion" object
// with choices[].message when not streaming.
type chatShape struct {
	id, model string
	created   int64
}

func (c chatShape) chunk(choices []chatStreamChoice, u *usage) chatChunk {
	return chatChunk{ID: c.id, Object: "chat.completion.chunk", Created: c.created, Model: c.model, Choices: choices, Usage: u}
}

func (c chatShape) start(u *usage) any {
	empty := ""
	return c.chunk([]chatStreamChoice{{Delta: chatDelta{Role: "assistant", Content: &empty}}}, u)
}

func (c chatShape) delta(text string, finish *string, u *usage) any {
	return c.chunk([]chatStreamChoice{{Delta: chatDelta{Content: &text}, FinishReason: finish}}, u)
}

func (c chatShape) usageChunk(u usage) any { return c.chunk([]chatStreamChoice{}, &u) }

func (c chatShape) full(text, finish string, u usage) any {
	return chatCompletion{ID: c.id, Object: "chat.completion", Created: c.created, Model: c.model, Usage: u,
		Choices: []chatChoice{{Message: chatMessageOut{Role: "assistant", Content: text, ToolCalls: []any{}}, FinishReason: finish}}}
}
