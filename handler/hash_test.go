package handler

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
)

func TestCanonicalRequest(t *testing.T) {
	temp := 0.7
	req := &Request{
		Model:  "gpt-4o-mini",
		System: "Be <brief> & kind",
		Messages: []Message{
			{Role: RoleUser, Content: "list\n\"files\""},
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_1", Name: "system_list_directory", Arguments: `{"directory_path":"."}`}}},
			{Role: RoleTool, Content: `["a.txt"]`, ToolCallID: "call_1"},
		},
		Temperature: &temp,
		Tools: []ToolDef{{Name: "system_list_directory", Description: "List.",
			Parameters: json.RawMessage(`{ "type": "object", "required": ["directory_path"], "properties": {"directory_path": {"type": "string"}} }`)}},
		ResponseFormat: &ResponseFormat{Type: FormatJSONSchema, Name: "plan", Schema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{"n":{"type":"number","maximum":1.50}}}`)},
	}
	want := `{"messages":[{"content":"list\n\"files\"","role":"user"},` +
		`{"content":"","role":"assistant","tool_calls":[{"arguments":"{\"directory_path\":\".\"}","id":"call_1","name":"system_list_directory"}]},` +
		`{"content":"[\"a.txt\"]","role":"tool","tool_call_id":"call_1"}],` +
		`"model":"gpt-4o-mini",` +
		`"response_format":{"json_schema":{"name":"plan","schema":{"additionalProperties":false,"properties":{"n":{"maximum":1.50,"type":"number"}},"type":"object"}},"type":"json_schema"},` +
		`"system":"Be <brief> & kind","temperature":0.7,` +
		`"tools":[{"description":"List.","name":"system_list_directory","parameters":{"properties":{"directory_path":{"type":"string"}},"required":["directory_path"],"type":"object"}}]}`
	got := CanonicalRequest(req)
	if got != want {
		t.Errorf("canonical:\n got %s\nwant %s", got, want)
	}
	sum := sha256.Sum256([]byte(want))
	if h := RequestHash(req); h != hex.EncodeToString(sum[:]) || len(h) != 64 {
		t.Errorf("hash = %s", h)
	}
	// The canonical text is valid JSON whose keys are sorted: re-encoding
	// through maps (sorted by encoding/json) keeps it.
	var v any
	if err := json.Unmarshal([]byte(got), &v); err != nil {
		t.Fatal(err)
	}
}

func TestCanonicalRequestOptionalKeys(t *testing.T) {
	zero := 0.0
	tests := []struct {
		req  *Request
		want string
	}{
		{&Request{Model: "m"}, `{"messages":[],"model":"m","system":""}`},
		{&Request{Model: "m", Temperature: &zero, Tools: []ToolDef{}}, `{"messages":[],"model":"m","system":"","temperature":0}`},
		{&Request{Model: "m", ResponseFormat: JSONOutput("", nil)}, `{"messages":[],"model":"m","response_format":{"type":"json_object"},"system":""}`},
		{&Request{Model: "m", ResponseFormat: JSONOutput("", json.RawMessage(`{}`))}, `{"messages":[],"model":"m","response_format":{"json_schema":{"name":"output","schema":{}},"type":"json_schema"},"system":""}`},
		{&Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: "\u2028\x01\xff"}}}, `{"messages":[{"content":"\u2028\u0001\ufffd","role":"user"}],"model":"m","system":""}`},
	}
	for _, tt := range tests {
		if got := CanonicalRequest(tt.req); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
	}
	// The provider is not part of the hash; the temperature is.
	a := &Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: "x"}}}
	b := &Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: "x"}}, Temperature: &zero}
	if RequestHash(a) == RequestHash(b) {
		t.Error("temperature 0 does not change the hash")
	}
}

func TestSchemaName(t *testing.T) {
	for in, want := range map[string]string{"": "output", "review.schema": "review_schema", "a-b_C9": "a-b_C9",
		"ünï": "__n__", string(make([]byte, 70)): string(make([]byte, 0)) + "________________________________________________________________"} {
		if got := SchemaName(in); got != want {
			t.Errorf("SchemaName(%q) = %q, want %q", in, got, want)
		}
	}
}
