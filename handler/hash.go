package handler

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/evalrun/evalrun/value"
)

// RequestHash returns the request hash of SPEC §14.6: the lowercase hex
// SHA-256 of the canonical JSON (keys sorted, no white space, no HTML
// escaping) of
//
//	{"messages": [{"content", "role", "tool_call_id"?, "tool_calls"?: [{"arguments", "id", "name"}]}],
//	 "model", "response_format"?, "system", "temperature"?,
//	 "tools"?: [{"description", "name", "parameters"}]}
//
// where a key marked ? is left out when it has no value. response_format is
// the object sent to chat-completions ({"type": "json_object"} or
// {"type": "json_schema", "json_schema": {"name", "schema"}}); tool
// parameters and schemas are re-encoded canonically. The provider's name,
// URL and key are not part of it, so recordings replay under any provider.
func RequestHash(req *Request) string {
	h := sha256.New()
	var b bytes.Buffer
	writeCanonicalRequest(&b, req)
	h.Write(b.Bytes())
	return hex.EncodeToString(h.Sum(nil))
}

// CanonicalRequest returns the canonical JSON text RequestHash hashes.
func CanonicalRequest(req *Request) string {
	var b bytes.Buffer
	writeCanonicalRequest(&b, req)
	return b.String()
}

func writeCanonicalRequest(b *bytes.Buffer, req *Request) {
	b.WriteString(`{"messages":[`)
	for i := range req.Messages {
		m := &req.Messages[i]
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"content":`)
		value.WriteJSONString(b, m.Content)
		b.WriteString(`,"role":`)
		value.WriteJSONString(b, m.Role)
		if m.ToolCallID != "" {
			b.WriteString(`,"tool_call_id":`)
			value.WriteJSONString(b, m.ToolCallID)
		}
		if len(m.ToolCalls) > 0 {
			b.WriteString(`,"tool_calls":[`)
			for j, c := range m.ToolCalls {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(`{"arguments":`)
				value.WriteJSONString(b, c.Arguments)
				b.WriteString(`,"id":`)
				value.WriteJSONString(b, c.ID)
				b.WriteString(`,"name":`)
				value.WriteJSONString(b, c.Name)
				b.WriteByte('}')
			}
			b.WriteByte(']')
		}
		b.WriteByte('}')
	}
	b.WriteString(`],"model":`)
	value.WriteJSONString(b, req.Model)
	if rf := req.ResponseFormat; rf != nil {
		b.WriteString(`,"response_format":`)
		writeResponseFormat(b, rf)
	}
	b.WriteString(`,"system":`)
	value.WriteJSONString(b, req.System)
	if req.Temperature != nil {
		b.WriteString(`,"temperature":`)
		t, err := json.Marshal(*req.Temperature)
		if err != nil { // NaN or infinity: not valid JSON
			t = []byte("null")
		}
		b.Write(t)
	}
	if len(req.Tools) > 0 {
		b.WriteString(`,"tools":`)
		writeTools(b, req.Tools)
	}
	b.WriteByte('}')
}

// writeResponseFormat writes the chat-completions response_format object.
func writeResponseFormat(b *bytes.Buffer, rf *ResponseFormat) {
	if rf.Type != FormatJSONSchema {
		b.WriteString(`{"type":`)
		value.WriteJSONString(b, rf.Type)
		b.WriteByte('}')
		return
	}
	b.WriteString(`{"json_schema":{"name":`)
	value.WriteJSONString(b, SchemaName(rf.Name))
	b.WriteString(`,"schema":`)
	writeCanonicalRaw(b, rf.Schema)
	b.WriteString(`},"type":"json_schema"}`)
}

// SchemaName returns the json_schema name sent for name: characters
// outside [A-Za-z0-9_-] replaced by '_', at most 64 of them, "output" when
// empty.
func SchemaName(name string) string {
	if name == "" {
		return "output"
	}
	out := []byte(name)
	for i, c := range out {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			out[i] = '_'
		}
	}
	if len(out) > 64 {
		out = out[:64]
	}
	return string(out)
}

// writeTools writes the tool definitions as a canonical JSON array.
func writeTools(b *bytes.Buffer, tools []ToolDef) {
	b.WriteByte('[')
	for i, t := range tools {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"description":`)
		value.WriteJSONString(b, t.Description)
		b.WriteString(`,"name":`)
		value.WriteJSONString(b, t.Name)
		b.WriteString(`,"parameters":`)
		writeCanonicalRaw(b, t.Parameters)
		b.WriteByte('}')
	}
	b.WriteByte(']')
}

// toolsJSON returns the tool definitions as compact JSON, the text whose
// tokens count for the tools (SPEC §14.2).
func toolsJSON(tools []ToolDef) string {
	var b bytes.Buffer
	writeTools(&b, tools)
	return b.String()
}

// writeCanonicalRaw re-encodes a JSON text with sorted keys and no white
// space; numbers keep their text. An empty text is written as {}; a text
// that is not JSON is written as a JSON string.
func writeCanonicalRaw(b *bytes.Buffer, raw json.RawMessage) {
	if len(bytes.TrimSpace(raw)) == 0 {
		b.WriteString("{}")
		return
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		value.WriteJSONString(b, string(raw))
		return
	}
	writeCanonicalValue(b, v)
}

// writeCanonicalValue writes a decoded JSON value canonically.
func writeCanonicalValue(b *bytes.Buffer, v any) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	// Maps are written with sorted keys by encoding/json; Encode adds a
	// newline, which is removed.
	if err := enc.Encode(v); err != nil {
		b.WriteString("null")
		return
	}
	b.Truncate(b.Len() - 1)
}
