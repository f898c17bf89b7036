package daemon_test

import (
	"testing"
)

// Cases 30–55: each line on a fresh daemon and its own connection, the exact
// response (or nothing), and the connection stays usable.
func TestMessageValidationCasesOverSocket(t *testing.T) {
	e := func(text string) string { return errLine(codeInvalid, text) }
	defaultAck := `{"protocol":1,"type":"state_ack","backend":"local","session_id":"default","state":"running","slot":0,"scene":1,"accent":"cyan","selected":true,"leased":false,"label":"default"}`
	for _, tc := range []struct {
		caseNo int
		line   string
		want   string // "" = nothing
	}{
		{30, `{"protocol":1,"type":"state","state":"waiting_for_reply"}`, ""},
		{31, `{"protocol":1,"type":"state","state":"running","reply":true}`, defaultAck},
		{32, `{"protocol":1,"type":"state","state":"running","agent":null,"reply":true}`, defaultAck},
		{33, `{"protocol":1,"type":"state","state":"running","reply":false}`, ""},
		{33, `{"protocol":1,"type":"state","state":"running","reply":null}`, ""},
		{34, `{"protocol":1,"type":"state","state":"thinking"}`, e("unknown state: thinking")},
		{34, `{"protocol":1,"type":"state"}`, e("unknown state: None")},
		{34, `{"protocol":1,"type":"state","state":5}`, e("unknown state: 5")},
		{35, `{"protocol":1,"type":"state","state":"running","agent":"x"}`, e("agent must be a JSON object")},
		{35, `{"protocol":1,"type":"state","state":"running","agent":{}}`, e("agent.backend must be a non-empty string")},
		{35, `{"protocol":1,"type":"state","state":"running","agent":{"backend":"a"}}`, e("agent.session_id must be a non-empty string")},
		{35, `{"protocol":1,"type":"state","state":"running","agent":{"backend":"a","session_id":5}}`, e("agent.session_id must be a non-empty string")},
		{36, `{"protocol":1,"type":"state","state":"running","agent":{"backend":"a","session_id":"b","label":""}}`, e("agent metadata values must be non-empty strings")},
		{36, `{"protocol":1,"type":"state","state":"running","agent":{"backend":"a","session_id":"b","":"x"}}`, e("agent metadata keys must be non-empty strings")},
		{36, `{"protocol":1,"type":"state","state":"running","agent":{"backend":"a","session_id":"b","n":5}}`, e("agent metadata values must be non-empty strings")},
		{37, `{"protocol":1,"type":"state","state":"running","agent":{"backend":"a","session_id":"b","k":"","":"v"}}`, e("agent metadata values must be non-empty strings")},
		{37, `{"protocol":1,"type":"state","state":"running","agent":{"backend":"a","session_id":"b","":"v","k":""}}`, e("agent metadata keys must be non-empty strings")},
		{38, `{"protocol":1,"type":"state","state":"bad","agent":{"backend":"a"}}`, e("agent.session_id must be a non-empty string")},
		{39, `{"protocol":1,"type":"state","state":"running","lease_id":"","reply":1}`, e("lease_id must be a non-empty string")},
		{39, `{"protocol":1,"type":"state","state":"running","lease_id":7}`, e("lease_id must be a non-empty string")},
		{40, `{"protocol":1,"type":"state","state":"running","reply":1}`, e("reply must be a boolean")},
		{40, `{"protocol":1,"type":"state","state":"running","reply":"yes"}`, e("reply must be a boolean")},
		{41, `{"protocol":1,"type":"state","state":"running","agent":{"backend":"codex","session_id":"session-123","cwd":"/home/u/p"},"lease_id":"lease-123","reply":true}`,
			`{"protocol":1,"type":"state_ack","backend":"codex","session_id":"session-123","state":"running","slot":0,"scene":1,"accent":"cyan","selected":true,"leased":false,"label":"p"}`},
		{42, `{"protocol":1,"type":"session_end"}`, e("agent must be a JSON object")},
		{42, `{"protocol":1,"type":"session_end","agent":null}`, e("agent must be a JSON object")},
		{43, `{"protocol":1,"type":"session_end","agent":{"backend":"a","session_id":"b","n":5}}`, ""},
		{44, `{"protocol":1,"type":"session_lease","lease_id":""}`, e("lease_id must be a non-empty string")},
		{44, `{"protocol":1,"type":"session_lease"}`, e("lease_id must be a non-empty string")},
		{44, `{"protocol":1,"type":"session_lease","lease_id":null}`, e("lease_id must be a non-empty string")},
		{45, `{"protocol":1,"type":"session_lease","lease_id":"L","metadata":[]}`, e("metadata must be a JSON object")},
		{45, `{"protocol":1,"type":"session_lease","lease_id":"L","metadata":{"a":""}}`, e("metadata values must be non-empty strings")},
		{45, `{"protocol":1,"type":"session_lease","lease_id":"L","metadata":{"a":1}}`, e("metadata values must be non-empty strings")},
		{45, `{"protocol":1,"type":"session_lease","lease_id":"L","agent":"x"}`, e("agent must be a JSON object")},
		{46, `{"protocol":1,"type":"session_lease","lease_id":"L","agent":null,"metadata":null}`, `{"protocol":1,"type":"session_lease_ack","lease_id":"L"}`},
		{47, `{"protocol":1,"type":"subscribe_actions","actions":[]}`, e("actions must be a non-empty JSON array")},
		{47, `{"protocol":1,"type":"subscribe_actions"}`, e("actions must be a non-empty JSON array")},
		{47, `{"protocol":1,"type":"subscribe_actions","actions":"approve"}`, e("actions must be a non-empty JSON array")},
		{47, `{"protocol":1,"type":"subscribe_actions","actions":["merge"]}`, e("actions contains an unknown control action")},
		{48, `{"protocol":1,"type":"subscribe_actions","actions":["stop"],"request_id":""}`, e("request_id must be a non-empty string")},
		{48, `{"protocol":1,"type":"subscribe_actions","actions":["stop"],"one_shot":"y"}`, e("one_shot must be a boolean")},
		{49, `{"protocol":1,"type":"subscribe_actions","actions":["stop"]}`, ""},
		{49, `{"protocol":1,"type":"subscribe_actions","agent":null,"actions":["stop"]}`, ""},
		{50, `{"protocol":1,"type":"subscribe_actions","actions":["stop","stop"]}`, ""},
		{51, `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":2.5}`, `{"protocol":1,"type":"preview_ack","preview_id":"p","state":"success"}`},
		{51, `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":31}`, e("ttl must be greater than zero and at most 30")},
		{52, `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":0}`, e("ttl must be greater than zero and at most 30")},
		{52, `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":-1}`, e("ttl must be greater than zero and at most 30")},
		{52, `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":30.0001}`, e("ttl must be greater than zero and at most 30")},
		{52, `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":true}`, e("ttl must be greater than zero and at most 30")},
		{52, `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":"5"}`, e("ttl must be greater than zero and at most 30")},
		{52, `{"protocol":1,"type":"preview","preview_id":"p","state":"success"}`, e("ttl must be greater than zero and at most 30")},
		{52, `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":30}`, `{"protocol":1,"type":"preview_ack","preview_id":"p","state":"success"}`},
		{52, `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":2.5e1}`, `{"protocol":1,"type":"preview_ack","preview_id":"p","state":"success"}`},
		{53, `{"protocol":1,"type":"preview","preview_id":"","state":"success","ttl":1}`, e("preview_id must be a non-empty string")},
		{53, `{"protocol":1,"type":"preview","preview_id":"p","state":"nope","ttl":1}`, e("unknown state: nope")},
		{53, `{"protocol":1,"type":"preview","state":"success","ttl":1}`, e("preview_id must be a non-empty string")},
		{54, `{"protocol":1,"type":"preview_end","preview_id":"unknown"}`, errLine("preview_not_owned", "surface preview is not owned by this client")},
		{54, `{"protocol":1,"type":"preview_end"}`, e("preview_id must be a non-empty string")},
	} {
		h := start(t)
		c := h.dial()
		c.send(tc.line)
		if tc.want == "" {
			c.ping()
		} else {
			if got := c.readLine(); got != tc.want {
				t.Errorf("case %d %s:\n got %s\nwant %s", tc.caseNo, tc.line, got, tc.want)
			}
			c.ping()
		}
		h.stop()
	}
}

func TestCase049_SubscribeWithoutAgentUsesDefault(t *testing.T) {
	h := start(t)
	c := h.dial()
	c.send(`{"protocol":1,"type":"subscribe_actions","actions":["stop"]}`)
	c.ping()
	s := h.session("local", "default")
	if s == nil || s["state"] != "waiting_for_reply" {
		t.Fatalf("local/default session: %v", s)
	}
}

// Case 55: every daemon message type is produced over the socket, and the
// client helper validated each against both schemas as it read it.
func TestCase055_EveryDaemonMessageTypeValidates(t *testing.T) {
	h := start(t)
	seen := map[string]bool{}
	note := func(m map[string]any) { seen[m["type"].(string)] = true }

	lease := h.dial()
	lease.send(`{"protocol":1,"type":"session_lease","lease_id":"L","metadata":{"label":"docs"}}`)
	note(lease.read())
	sub := h.subscribe("codex", "a", []string{"approve"})
	hook := h.dial()
	hook.send(stateMsg("codex", "a", "waiting_for_approval", `"lease_id":"L"`, `"reply":true`))
	note(lease.read()) // session_lease_bound
	note(hook.read())  // state_ack
	h.press("approve")
	note(sub.read()) // action
	c := h.dial()
	c.send(`{"protocol":1,"type":"status"}`)
	note(c.read())
	c.send(ping)
	note(c.read())
	c.send(`{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":1}`)
	note(c.read())
	c.send(`{"protocol":1,"type":"preview_end","preview_id":"p"}`)
	note(c.read())
	c.send(`{"protocol":1,"type":"nope"}`)
	note(c.read())
	for _, typ := range []string{"state_ack", "status", "pong", "session_lease_ack", "session_lease_bound", "action", "preview_ack", "preview_end_ack", "error"} {
		if !seen[typ] {
			t.Errorf("no %s seen", typ)
		}
	}
}
