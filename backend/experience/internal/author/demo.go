// Package author writes Lets' own experiences: the guided Demo that
// teaches the pad and the Show "A Spark Among Friends". It is the
// authoring side only; `go generate` in backend/experience runs ./gen,
// which writes the manifests to content/ where they are embedded and
// loaded by the validating parsers. Everything here is deterministic so
// the committed files can be checked for staleness.
package author

import (
	"bytes"
	"encoding/json"

	"github.com/lets-app/lets/backend/wire"
)

// Demo manifest JSON shapes (Demo Manifest 1, experiences spec §2.1), in
// the spec's key order.
type demoFile struct {
	SchemaVersion int         `json:"schema_version"`
	Kind          string      `json:"kind"`
	ID            string      `json:"id"`
	Title         string      `json:"title"`
	InitialStage  string      `json:"initial_stage"`
	Stages        []demoStage `json:"stages"`
}

type demoStage struct {
	ID          string           `json:"id"`
	Prompt      demoPrompt       `json:"prompt"`
	GuideTarget *demoTarget      `json:"guide_target"`
	View        demoView         `json:"view"`
	Transitions []demoTransition `json:"transitions"`
	EnterAudio  *string          `json:"enter_audio"`
	Terminal    bool             `json:"terminal"`
}

type demoPrompt struct {
	Eyebrow string `json:"eyebrow"`
	Title   string `json:"title"`
	Detail  string `json:"detail"`
}

type demoTarget struct {
	Event  string  `json:"event"`
	Slot   *int    `json:"slot"`
	Action *string `json:"action"`
}

type demoView struct {
	Sessions         []demoSession `json:"sessions"`
	AvailableActions []string      `json:"available_actions"`
}

type demoSession struct {
	Slot     int    `json:"slot"`
	State    string `json:"state"`
	Selected bool   `json:"selected"`
	Accent   string `json:"accent"`
	Label    string `json:"label"`
}

type demoTransition struct {
	Event     string  `json:"event"`
	Slot      *int    `json:"slot"`
	Action    *string `json:"action"`
	NextStage string  `json:"next_stage"`
	Audio     *string `json:"audio"`
}

// The four fake agents of the tour, in slot order.
var demoAgents = [4]struct{ label, accent string }{
	{"Coder", "cyan"}, {"Reviewer", "magenta"}, {"Tests", "lime"}, {"Docs", "orange"},
}

// stageSpec is a compact description of one stage.
type stageSpec struct {
	id, eyebrow, title, detail string
	states                     [4]wire.State
	selected                   int
	enter                      string
	moves                      []move // empty: terminal
}

// move is one transition: select a slot (action "") or press an action.
type move struct {
	slot   int
	action wire.Action
	next   string
	audio  string
}

func sel(slot int, next, audio string) move { return move{slot: slot, next: next, audio: audio} }
func press(a wire.Action, next, audio string) move {
	return move{slot: -1, action: a, next: next, audio: audio}
}

const (
	running  = wire.StateRunning
	reply    = wire.StateWaitingForReply
	approval = wire.StateWaitingForApproval
	success  = wire.StateSuccess
	failed   = wire.StateError
	stopped  = wire.StateCancelled
)

// demoStages is the tour: select, approve (or reject and retry), notice a
// failure, retry, find a question, stop a runaway agent. Every lit action
// is one the selected agent's state permits, as on a real pad.
func demoStages() []stageSpec {
	return []stageSpec{
		{
			id: "meet_the_pad", eyebrow: "Welcome to the Lets pad",
			title:    "One light per agent.",
			detail:   "Each agent gets a row and a colour: its button on the right edge, its status light beside it. The big picture shows the selected agent. Reviewer's amber ! means it is waiting for you: press the magenta button.",
			states:   [4]wire.State{running, approval, running, running},
			selected: 0, enter: "approval",
			moves: []move{sel(1, "review_waits", "session_selected")},
		},
		{
			id: "review_waits", eyebrow: "Permission requested",
			title:    "Approve or reject.",
			detail:   "Reviewer wants to go ahead. Green Approve and red Reject light up on the top edge; your press goes to this agent and to nobody else.",
			states:   [4]wire.State{running, approval, running, running},
			selected: 1, enter: "approval",
			moves: []move{press(wire.ActionApprove, "tests_failed", "approve"), press(wire.ActionReject, "review_rejected", "reject")},
		},
		{
			id: "review_rejected", eyebrow: "Decision delivered",
			title:    "Rejected, not lost.",
			detail:   "The grey square means Reviewer stopped. Blue Retry asks it to try again, without opening anything.",
			states:   [4]wire.State{running, stopped, running, running},
			selected: 1, enter: "cancelled",
			moves: []move{press(wire.ActionRetry, "tests_failed", "retry")},
		},
		{
			id: "tests_failed", eyebrow: "Meanwhile, in the background",
			title:    "A red light needs a look.",
			detail:   "Reviewer is happy now, but the Tests status light turned red. You do not have to watch every window: the pad tells you. Select Tests.",
			states:   [4]wire.State{running, success, failed, running},
			selected: 1, enter: "error",
			moves: []move{sel(2, "retry_tests", "session_selected")},
		},
		{
			id: "retry_tests", eyebrow: "Something failed",
			title:    "Retry the tests.",
			detail:   "The red X is the failure. Retry sends Tests back to work.",
			states:   [4]wire.State{running, success, failed, running},
			selected: 2, enter: "error",
			moves: []move{press(wire.ActionRetry, "docs_asks", "retry")},
		},
		{
			id: "docs_asks", eyebrow: "A question",
			title:    "A white ? waits for words.",
			detail:   "Docs has a question only you can answer. Select its orange button to see who is asking.",
			states:   [4]wire.State{running, success, running, reply},
			selected: 2, enter: "question",
			moves: []move{sel(3, "answer_docs", "session_selected")},
		},
		{
			id: "answer_docs", eyebrow: "Replies happen where you type",
			title:    "Answer at the keyboard.",
			detail:   "The pad shows who asked; you answer in the agent's own chat or terminal. Now look at Coder, which has been running all along: select cyan.",
			states:   [4]wire.State{running, success, running, reply},
			selected: 3, enter: "",
			moves: []move{sel(0, "stop_coder", "session_selected")},
		},
		{
			id: "stop_coder", eyebrow: "Running too long",
			title:    "Stop a runaway agent.",
			detail:   "Red Stop on the top edge halts the selected agent at once. Press it.",
			states:   [4]wire.State{running, success, running, reply},
			selected: 0, enter: "",
			moves: []move{press(wire.ActionStop, "finale", "stop")},
		},
		{
			id: "finale", eyebrow: "That is the whole pad",
			title:    "You ran four agents from one pad.",
			detail:   "Select, approve, reject, retry, stop: every press reaches exactly one agent. Your real agents appear here as soon as they start.",
			states:   [4]wire.State{stopped, success, success, success},
			selected: 2, enter: "success",
		},
	}
}

// DemoJSON returns the Demo manifest, pretty-printed with a final newline.
func DemoJSON() ([]byte, error) {
	f := demoFile{
		SchemaVersion: 1, Kind: "demo", ID: "lets-pad-tour",
		Title: "Meet the Lets Pad", InitialStage: "meet_the_pad",
	}
	for _, s := range demoStages() {
		st := demoStage{
			ID:          s.id,
			Prompt:      demoPrompt{Eyebrow: s.eyebrow, Title: s.title, Detail: s.detail},
			Transitions: []demoTransition{},
			EnterAudio:  optional(s.enter),
			Terminal:    len(s.moves) == 0,
			View:        demoView{Sessions: []demoSession{}, AvailableActions: []string{}},
		}
		for i, a := range demoAgents {
			st.View.Sessions = append(st.View.Sessions, demoSession{
				Slot: i, State: string(s.states[i]), Selected: i == s.selected, Accent: a.accent, Label: a.label,
			})
		}
		for _, a := range wire.Actions() {
			if wire.Permits(s.states[s.selected], a) {
				st.View.AvailableActions = append(st.View.AvailableActions, string(a))
			}
		}
		for i, m := range s.moves {
			t := demoTransition{NextStage: m.next, Audio: optional(m.audio)}
			g := demoTarget{}
			if m.action == "" {
				t.Event, t.Slot = "select", optionalInt(m.slot)
				g.Event, g.Slot = "select", optionalInt(m.slot)
			} else {
				t.Event, t.Action = "action", optional(string(m.action))
				g.Event, g.Action = "action", optional(string(m.action))
			}
			st.Transitions = append(st.Transitions, t)
			if i == 0 {
				st.GuideTarget = &g
			}
		}
		f.Stages = append(f.Stages, st)
	}
	return encode(f, true)
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optionalInt(i int) *int { return &i }

// encode writes v as JSON (indented or compact) with a final newline and
// without HTML escaping.
func encode(v any, indent bool) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// File names under backend/experience/content.
const (
	DemoFile = "lets-demo-v1.json"
	ShowFile = "lets-show-v1.json"
)
