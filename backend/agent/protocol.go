package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// This file is the pure stream-json protocol of `claude -p --input-format
// stream-json --output-format stream-json --verbose
// --include-partial-messages` (Claude Code 2.1.332): DecodeLine turns one
// stdout line into a typed Event, and the Encode functions build the lines
// Lets writes to claude's stdin (schemas/claude-stream-input.schema.json).
// The shapes were recorded from the real CLI: testdata/recorded/README.md.

// Event is one thing claude reported on stdout, or one thing the Process
// adds (Restarted, StreamError).
type Event interface{ event() }

// MCPServer is one MCP server of the init line and whether it connected.
type MCPServer struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// Init is `system/init`: claude starts a turn (printed once per turn).
type Init struct {
	SessionID      string
	Model          string
	CWD            string
	PermissionMode string
	Version        string
	Tools          []string
	MCPServers     []MCPServer
}

// Status is `system/status`, e.g. "requesting".
type Status struct {
	Status string
}

// APIRetry is `system/api_retry`: claude will retry a failed API call.
// Error is a code such as "authentication_failed".
type APIRetry struct {
	Attempt     int
	MaxRetries  int
	ErrorStatus int
	Error       string
}

// TextDelta is a piece of assistant text as it streams (a stream_event
// content_block_delta of type text_delta). Index is the content block.
type TextDelta struct {
	MessageID string
	Index     int
	Text      string
}

// Block is one content block: of an assistant message (text, tool_use,
// thinking…) or of a user turn Lets sends (text, image).
type Block struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
	// tool_use
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// image (Lets → claude): base64 data
	Source *ImageSource `json:"source,omitempty"`
}

// ImageSource is the base64 source of an image block.
type ImageSource struct {
	Type      string `json:"type"` // "base64"
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// TextBlock is a text content block for Send.
func TextBlock(text string) Block { return Block{Type: "text", Text: text} }

// ImageBlock is a base64 image content block for Send; mediaType is one of
// image/png, image/jpeg, image/gif, image/webp.
func ImageBlock(mediaType, base64Data string) Block {
	return Block{Type: "image", Source: &ImageSource{Type: "base64", MediaType: mediaType, Data: base64Data}}
}

// Assistant is one `assistant` line: a whole content block (claude prints
// one line per block). Error is set (e.g. "authentication_failed") when the
// CLI made the message up to report an API error.
type Assistant struct {
	MessageID string
	Model     string
	Blocks    []Block
	Error     string
}

// ToolResultBlock is one tool_result of a `user` line.
type ToolResultBlock struct {
	ToolUseID string
	IsError   bool
	// Text is the result's text (string content, or its text blocks joined).
	Text string
}

// ToolResult is a `user` line carrying tool results.
type ToolResult struct {
	Results []ToolResultBlock
}

// UserEcho is a `user` line without tool results, e.g. claude's
// "[Request interrupted by user]".
type UserEcho struct {
	Text string
}

// ControlRequest is a `control_request` from claude; with
// --permission-prompt-tool stdio, Subtype "can_use_tool" asks whether a tool
// may run and claude waits (without a deadline) for AnswerPermission.
type ControlRequest struct {
	RequestID   string
	Subtype     string
	ToolName    string
	DisplayName string
	ToolUseID   string
	Description string
	BlockedPath string
	Input       json.RawMessage
	// Raw is the whole request object, for fields not decoded here.
	Raw json.RawMessage
}

// ControlCancel withdraws one of claude's own control requests: a
// can_use_tool that something else (a PermissionRequest hook) answered
// first. Lets takes its question down.
type ControlCancel struct {
	RequestID string
}

// ControlResponse is claude's answer to a control_request Lets sent (e.g.
// interrupt). Error is set when Subtype is "error".
type ControlResponse struct {
	RequestID string
	Subtype   string
	Error     string
	Response  json.RawMessage
}

// Usage is the token count of a turn.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// PermissionDenial is one tool call that was not allowed during a turn.
type PermissionDenial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// Result ends a turn. Subtype is "success" or e.g.
// "error_during_execution" (an interrupted turn, TerminalReason
// "aborted_streaming"). Error is a code to match on, never the text:
// "authentication_failed" when the API refused the key (also
// APIErrorStatus 401), "interrupted" for an interrupted turn, "crashed" when
// the Process made the Result up because claude ended mid-turn.
type Result struct {
	Subtype           string
	IsError           bool
	Error             string
	Errors            []string
	Text              string
	SessionID         string
	DurationMS        int64
	NumTurns          int
	TerminalReason    string
	APIErrorStatus    int
	APIErrorType      string
	TotalCostUSD      float64
	Usage             Usage
	PermissionDenials []PermissionDenial
	// QueuedTurnCount is how many user turns sent meanwhile still wait
	// (claude may answer several waiting turns together, in one turn).
	QueuedTurnCount int
}

// Other is any line this package does not model (hook_started,
// hook_response, rate limit notices, stream_event other than text deltas,
// types a later CLI adds). Never fatal.
type Other struct {
	Type    string
	Subtype string
	Raw     json.RawMessage
}

// Restarted is sent by the Process after claude ended unexpectedly and was
// started again with --resume.
type Restarted struct {
	Attempt int
	PID     int
	Reason  string
}

// StreamError is sent by the Process when a line could not be used (e.g.
// *LineTooLongError); the stream goes on.
type StreamError struct{ Err error }

func (Init) event()            {}
func (Status) event()          {}
func (APIRetry) event()        {}
func (TextDelta) event()       {}
func (Assistant) event()       {}
func (ToolResult) event()      {}
func (UserEcho) event()        {}
func (ControlRequest) event()  {}
func (ControlResponse) event() {}
func (ControlCancel) event()   {}
func (Result) event()          {}
func (Other) event()           {}
func (Restarted) event()       {}
func (StreamError) event()     {}

// Error codes of Result.Error.
const (
	ErrCodeAuthenticationFailed = "authentication_failed"
	ErrCodeInterrupted          = "interrupted"
	ErrCodeCrashed              = "crashed"
)

// DecodeError says a stdout line was not a JSON object.
type DecodeError struct {
	Line []byte // at most the first 200 bytes
	Err  error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("claude printed a line that is not JSON (%v): %q", e.Err, e.Line)
}
func (e *DecodeError) Unwrap() error { return e.Err }

// LineTooLongError says claude printed a line longer than the limit; it
// was skipped.
type LineTooLongError struct {
	Size, Limit int
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("claude printed a line of %d bytes, more than the %d bytes Lets reads; it was skipped", e.Size, e.Limit)
}

// ErrEmptyTurn is returned by EncodeUserTurn for a turn without blocks.
var ErrEmptyTurn = errors.New("agent: a turn needs at least one content block")

// BlockError says a block cannot be sent to claude.
type BlockError struct {
	Index  int
	Reason string
}

func (e *BlockError) Error() string {
	return fmt.Sprintf("agent: content block %d cannot be sent: %s", e.Index, e.Reason)
}

type rawLine struct {
	Type      string          `json:"type"`
	Subtype   string          `json:"subtype"`
	SessionID string          `json:"session_id"`
	Error     json.RawMessage `json:"error"`

	// system/init
	CWD            string          `json:"cwd"`
	Model          string          `json:"model"`
	PermissionMode string          `json:"permissionMode"`
	Version        string          `json:"claude_code_version"`
	Tools          []string        `json:"tools"`
	MCPServers     []MCPServer     `json:"mcp_servers"`
	Status         json.RawMessage `json:"status"`
	// system/api_retry
	Attempt     int `json:"attempt"`
	MaxRetries  int `json:"max_retries"`
	ErrorStatus int `json:"error_status"`

	// stream_event
	Event *struct {
		Type  string `json:"type"`
		Index int    `json:"index"`
		Delta *struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"delta"`
	} `json:"event"`
	APIMessageID string `json:"api_message_id"`

	// assistant, user
	Message *struct {
		ID      string          `json:"id"`
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`

	// control_request, control_response
	RequestID string          `json:"request_id"`
	Request   json.RawMessage `json:"request"`
	Response  *struct {
		Subtype   string          `json:"subtype"`
		RequestID string          `json:"request_id"`
		Error     string          `json:"error"`
		Response  json.RawMessage `json:"response"`
	} `json:"response"`

	// result
	IsError           bool               `json:"is_error"`
	Result            string             `json:"result"`
	Errors            []string           `json:"errors"`
	DurationMS        int64              `json:"duration_ms"`
	NumTurns          int                `json:"num_turns"`
	TerminalReason    string             `json:"terminal_reason"`
	APIErrorStatus    int                `json:"api_error_status"`
	APIErrorType      string             `json:"api_error_type"`
	TotalCostUSD      float64            `json:"total_cost_usd"`
	Usage             Usage              `json:"usage"`
	PermissionDenials []PermissionDenial `json:"permission_denials"`
	QueuedTurnCount   int                `json:"queued_turn_count"`
}

// DecodeLine decodes one stdout line. Unknown or unexpected lines become
// Other; only a line that is not a JSON object is an error (*DecodeError).
func DecodeLine(line []byte) (Event, error) {
	line = bytes.TrimSpace(line)
	var r rawLine
	if err := json.Unmarshal(line, &r); err != nil {
		// A known type with a field of an unexpected JSON type: keep the
		// line as Other rather than failing the stream.
		var probe struct {
			Type    string `json:"type"`
			Subtype string `json:"subtype"`
		}
		if json.Unmarshal(line, &probe) == nil {
			return Other{Type: probe.Type, Subtype: probe.Subtype, Raw: clone(line)}, nil
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(line, &obj) == nil {
			return Other{Raw: clone(line)}, nil
		}
		return nil, &DecodeError{Line: clip(line, 200), Err: err}
	}
	other := func() (Event, error) { return Other{Type: r.Type, Subtype: r.Subtype, Raw: clone(line)}, nil }
	switch r.Type {
	case "system":
		switch r.Subtype {
		case "init":
			return Init{SessionID: r.SessionID, Model: r.Model, CWD: r.CWD, PermissionMode: r.PermissionMode,
				Version: r.Version, Tools: r.Tools, MCPServers: r.MCPServers}, nil
		case "status":
			var s string
			_ = json.Unmarshal(r.Status, &s)
			return Status{Status: s}, nil
		case "api_retry":
			return APIRetry{Attempt: r.Attempt, MaxRetries: r.MaxRetries, ErrorStatus: r.ErrorStatus, Error: errorCode(r.Error)}, nil
		}
		return other()
	case "stream_event":
		if r.Event != nil && r.Event.Type == "content_block_delta" && r.Event.Delta != nil && r.Event.Delta.Type == "text_delta" {
			return TextDelta{MessageID: r.APIMessageID, Index: r.Event.Index, Text: r.Event.Delta.Text}, nil
		}
		return other()
	case "assistant":
		if r.Message == nil {
			return other()
		}
		blocks, ok := decodeBlocks(r.Message.Content)
		if !ok {
			return other()
		}
		return Assistant{MessageID: r.Message.ID, Model: r.Message.Model, Blocks: blocks, Error: errorCode(r.Error)}, nil
	case "user":
		if r.Message == nil {
			return other()
		}
		return decodeUser(r.Message.Content, line)
	case "control_request":
		var req struct {
			Subtype     string          `json:"subtype"`
			ToolName    string          `json:"tool_name"`
			DisplayName string          `json:"display_name"`
			ToolUseID   string          `json:"tool_use_id"`
			Description string          `json:"description"`
			BlockedPath string          `json:"blocked_path"`
			Input       json.RawMessage `json:"input"`
		}
		if json.Unmarshal(r.Request, &req) != nil || r.RequestID == "" {
			return other()
		}
		return ControlRequest{RequestID: r.RequestID, Subtype: req.Subtype, ToolName: req.ToolName, DisplayName: req.DisplayName,
			ToolUseID: req.ToolUseID, Description: req.Description, BlockedPath: req.BlockedPath,
			Input: clone(req.Input), Raw: clone(r.Request)}, nil
	case "control_cancel_request":
		if r.RequestID == "" {
			return other()
		}
		return ControlCancel{RequestID: r.RequestID}, nil
	case "control_response":
		if r.Response == nil {
			return other()
		}
		return ControlResponse{RequestID: r.Response.RequestID, Subtype: r.Response.Subtype, Error: r.Response.Error, Response: clone(r.Response.Response)}, nil
	case "result":
		res := Result{Subtype: r.Subtype, IsError: r.IsError, Errors: r.Errors, Text: r.Result, SessionID: r.SessionID,
			DurationMS: r.DurationMS, NumTurns: r.NumTurns, TerminalReason: r.TerminalReason, APIErrorStatus: r.APIErrorStatus,
			APIErrorType: r.APIErrorType, TotalCostUSD: r.TotalCostUSD, Usage: r.Usage, PermissionDenials: r.PermissionDenials,
			QueuedTurnCount: r.QueuedTurnCount}
		res.Error = resultCode(res, errorCode(r.Error))
		return res, nil
	}
	return other()
}

// resultCode is the error code of a result line on its own (the Process
// also carries over an Assistant.Error seen in the same turn).
func resultCode(r Result, own string) string {
	switch {
	case own != "":
		return own
	case !r.IsError:
		return ""
	case r.APIErrorStatus == 401 || r.APIErrorType == "authentication_error":
		return ErrCodeAuthenticationFailed
	case r.TerminalReason == "aborted_streaming" || r.TerminalReason == "aborted_tools":
		return ErrCodeInterrupted
	}
	return r.Subtype
}

// errorCode reads an "error" field that is a code string; anything else
// (absent, null, an object) is "".
func errorCode(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func decodeBlocks(raw json.RawMessage) ([]Block, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []Block{TextBlock(s)}, true
	}
	var blocks []Block
	if json.Unmarshal(raw, &blocks) != nil {
		return nil, false
	}
	for i := range blocks {
		blocks[i].Input = clone(blocks[i].Input)
	}
	return blocks, true
}

func decodeUser(raw json.RawMessage, line []byte) (Event, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return UserEcho{Text: s}, nil
	}
	var blocks []struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		ToolUseID string          `json:"tool_use_id"`
		IsError   bool            `json:"is_error"`
		Content   json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return Other{Type: "user", Raw: clone(line)}, nil
	}
	var tr ToolResult
	var text bytes.Buffer
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			tr.Results = append(tr.Results, ToolResultBlock{ToolUseID: b.ToolUseID, IsError: b.IsError, Text: contentText(b.Content)})
		case "text":
			text.WriteString(b.Text)
		}
	}
	if len(tr.Results) > 0 {
		return tr, nil
	}
	return UserEcho{Text: text.String()}, nil
}

// contentText is the text of a tool_result's content: a string, or the
// text blocks of a list joined by newlines.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var b bytes.Buffer
	for _, bl := range blocks {
		if bl.Type != "text" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(bl.Text)
	}
	return b.String()
}

func clone(b []byte) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	return append(json.RawMessage(nil), b...)
}

func clip(b []byte, n int) []byte {
	if len(b) > n {
		b = b[:n]
	}
	return append([]byte(nil), b...)
}

// imageTypes are the media types the Messages API takes for base64 images.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// EncodeUserTurn is the stdin line (with its newline) of one user turn:
// {"type":"user","message":{"role":"user","content":[blocks]}}. Content is
// always a list of blocks (text, or base64 image), never a plain string.
func EncodeUserTurn(blocks []Block) ([]byte, error) {
	if len(blocks) == 0 {
		return nil, ErrEmptyTurn
	}
	type source struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	}
	type block struct {
		Type   string  `json:"type"`
		Text   *string `json:"text,omitempty"`
		Source *source `json:"source,omitempty"`
	}
	out := make([]block, 0, len(blocks))
	for i, b := range blocks {
		switch b.Type {
		case "text":
			if b.Text == "" {
				return nil, &BlockError{Index: i, Reason: "the text is empty"}
			}
			t := b.Text
			out = append(out, block{Type: "text", Text: &t})
		case "image":
			if b.Source == nil || b.Source.Data == "" {
				return nil, &BlockError{Index: i, Reason: "the image has no data"}
			}
			if !imageTypes[b.Source.MediaType] {
				return nil, &BlockError{Index: i, Reason: fmt.Sprintf("the image type %q is not one of PNG, JPEG, GIF or WebP", b.Source.MediaType)}
			}
			out = append(out, block{Type: "image", Source: &source{Type: "base64", MediaType: b.Source.MediaType, Data: b.Source.Data}})
		default:
			return nil, &BlockError{Index: i, Reason: fmt.Sprintf("a block of type %q cannot be sent", b.Type)}
		}
	}
	return marshalLine(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": out}})
}

// EncodePermissionAllow answers a can_use_tool request with allow; input is
// the tool input to run with (the request's own input unless changed; it
// must be a JSON object).
func EncodePermissionAllow(requestID string, input json.RawMessage) ([]byte, error) {
	if requestID == "" {
		return nil, errors.New("agent: an answer needs the request id")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(input, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("agent: the tool input to allow must be a JSON object: %w", errOr(err))
	}
	return marshalLine(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": requestID,
		"response": map[string]any{"behavior": "allow", "updatedInput": json.RawMessage(input)},
	}})
}

// EncodePermissionDeny answers a can_use_tool request with deny; message
// goes to the model as the tool's error result.
func EncodePermissionDeny(requestID, message string) ([]byte, error) {
	if requestID == "" {
		return nil, errors.New("agent: an answer needs the request id")
	}
	if message == "" {
		message = "The person using Lets said no."
	}
	return marshalLine(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": requestID,
		"response": map[string]any{"behavior": "deny", "message": message},
	}})
}

// EncodeInterrupt is a control_request that stops the running turn.
func EncodeInterrupt(requestID string) ([]byte, error) {
	return encodeControl(requestID, "interrupt")
}

// EncodeEndSession is a control_request that ends the session.
func EncodeEndSession(requestID string) ([]byte, error) {
	return encodeControl(requestID, "end_session")
}

func encodeControl(requestID, subtype string) ([]byte, error) {
	if requestID == "" {
		return nil, errors.New("agent: a control request needs an id")
	}
	return marshalLine(map[string]any{"type": "control_request", "request_id": requestID, "request": map[string]any{"subtype": subtype}})
}

func errOr(err error) error {
	if err != nil {
		return err
	}
	return errors.New("null")
}

func marshalLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("agent: encode a line for claude: %w", err)
	}
	return append(b, '\n'), nil
}
