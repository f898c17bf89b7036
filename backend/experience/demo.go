package experience

import (
	"fmt"
	"slices"

	"github.com/lets-app/lets/backend/wire"
)

// Demo Manifest 1 (experiences spec §2): a guided stage graph of fake agent
// views that a person walks through by selecting sessions and pressing
// actions.

// Event kinds of a Demo transition or guide target.
const (
	EventSelect = "select"
	EventAction = "action"
)

// MaxDemoStages is the schema's stage limit.
const MaxDemoStages = 64

// Demo is a validated Demo Manifest 1.
type Demo struct {
	ID           string
	Title        string
	InitialStage string
	Stages       []Stage

	initial int
}

// Stage is one Demo stage. Stage i's index is its cue_index.
type Stage struct {
	ID     string
	Prompt Prompt
	// GuideTarget is what the guide highlights; nil exactly on the terminal
	// stage.
	GuideTarget *Target
	// Sessions are the fake agents, dense from slot 0.
	Sessions []Session
	// Available are the lit actions (a set; duplicates in the file are
	// dropped, first occurrence kept).
	Available   []wire.Action
	Transitions []Transition
	// EnterAudio is the earcon played on entering the stage ("" for null).
	EnterAudio string
	Terminal   bool
}

// Prompt is a stage's text: Title is the caption, Detail the line under it,
// Eyebrow a kicker used only by public pages.
type Prompt struct {
	Eyebrow, Title, Detail string
}

// Session is one fake agent of a stage.
type Session struct {
	Slot     int
	State    wire.State
	Selected bool
	Accent   string
	Label    string
}

// Target is an input: a selection of Slot (Event "select", Action "") or a
// press of Action (Event "action", Slot -1).
type Target struct {
	Event  string
	Slot   int
	Action wire.Action
}

// Transition moves to NextStage when its target's input arrives.
type Transition struct {
	Target
	NextStage string
	// Audio is the earcon of the transition ("" for null: the next stage's
	// enter_audio plays instead).
	Audio string

	next int
}

// Initial returns the index of the initial stage.
func (d *Demo) Initial() int { return d.initial }

// StageIndex returns the index of the stage with id, or -1.
func (d *Demo) StageIndex(id string) int {
	for i, s := range d.Stages {
		if s.ID == id {
			return i
		}
	}
	return -1
}

// SelectedSlot returns the slot of the selected session, or -1.
func (s *Stage) SelectedSlot() int {
	for _, se := range s.Sessions {
		if se.Selected {
			return se.Slot
		}
	}
	return -1
}

// SelectedState returns the selected session's state, or "".
func (s *Stage) SelectedState() wire.State {
	for _, se := range s.Sessions {
		if se.Selected {
			return se.State
		}
	}
	return ""
}

// ParseDemoManifest decodes and validates a Demo Manifest 1 with every
// schema and loader rule of §2.2, plus the identity-accent rule the spec
// recommends so that every surface message stays schema-valid.
func ParseDemoManifest(data []byte) (*Demo, error) {
	doc, err := decodeDocument(data, "Demo manifest")
	if err != nil {
		return nil, err
	}
	root, err := object(doc, "demo", "schema_version", "kind", "id", "title", "initial_stage", "stages")
	if err != nil {
		return nil, err
	}
	if _, err := integer(root["schema_version"], "demo.schema_version", 1, 1); err != nil {
		return nil, fmt.Errorf("%w (only Demo Manifest 1 is supported)", err)
	}
	if err := constant(root["kind"], "demo.kind", "demo"); err != nil {
		return nil, err
	}
	d := &Demo{}
	if d.ID, err = text(root["id"], "demo.id"); err != nil {
		return nil, err
	}
	if d.Title, err = text(root["title"], "demo.title"); err != nil {
		return nil, err
	}
	if d.InitialStage, err = text(root["initial_stage"], "demo.initial_stage"); err != nil {
		return nil, err
	}
	raw, err := array(root["stages"], "demo.stages", 1, MaxDemoStages)
	if err != nil {
		return nil, err
	}
	for i, rs := range raw {
		st, err := parseStage(rs, fmt.Sprintf("demo.stages[%d]", i))
		if err != nil {
			return nil, err
		}
		d.Stages = append(d.Stages, st)
	}
	if err := d.link(); err != nil {
		return nil, err
	}
	return d, nil
}

func parseStage(v any, path string) (Stage, error) {
	var st Stage
	m, err := object(v, path, "id", "prompt", "guide_target", "view", "transitions", "enter_audio", "terminal")
	if err != nil {
		return st, err
	}
	if st.ID, err = text(m["id"], path+".id"); err != nil {
		return st, err
	}
	pm, err := object(m["prompt"], path+".prompt", "eyebrow", "title", "detail")
	if err != nil {
		return st, err
	}
	if st.Prompt.Eyebrow, err = text(pm["eyebrow"], path+".prompt.eyebrow"); err != nil {
		return st, err
	}
	if st.Prompt.Title, err = text(pm["title"], path+".prompt.title"); err != nil {
		return st, err
	}
	if st.Prompt.Detail, err = text(pm["detail"], path+".prompt.detail"); err != nil {
		return st, err
	}
	if m["guide_target"] != nil {
		gm, err := object(m["guide_target"], path+".guide_target", "event", "slot", "action")
		if err != nil {
			return st, err
		}
		t, err := parseTarget(gm, path+".guide_target")
		if err != nil {
			return st, err
		}
		st.GuideTarget = &t
	}
	vm, err := object(m["view"], path+".view", "sessions", "available_actions")
	if err != nil {
		return st, err
	}
	sessions, err := array(vm["sessions"], path+".view.sessions", 0, wire.MaxCapacity)
	if err != nil {
		return st, err
	}
	selected := -1
	for i, rs := range sessions {
		sp := fmt.Sprintf("%s.view.sessions[%d]", path, i)
		se, err := parseSession(rs, sp)
		if err != nil {
			return st, err
		}
		if se.Slot != i {
			return st, invalid(sp+".slot", "is %d but must be %d: sessions are listed densely from slot 0 in slot order", se.Slot, i)
		}
		if se.Selected {
			if selected >= 0 {
				return st, invalid(sp+".selected", "slots %d and %d are both selected; at most one session may be selected", selected, i)
			}
			selected = i
		}
		st.Sessions = append(st.Sessions, se)
	}
	actions, err := array(vm["available_actions"], path+".view.available_actions", 0, maxInt)
	if err != nil {
		return st, err
	}
	for i, ra := range actions {
		a, err := action(ra, fmt.Sprintf("%s.view.available_actions[%d]", path, i))
		if err != nil {
			return st, err
		}
		if !slices.Contains(st.Available, a) {
			st.Available = append(st.Available, a)
		}
	}
	transitions, err := array(m["transitions"], path+".transitions", 0, maxInt)
	if err != nil {
		return st, err
	}
	for i, rt := range transitions {
		tp := fmt.Sprintf("%s.transitions[%d]", path, i)
		tm, err := object(rt, tp, "event", "slot", "action", "next_stage", "audio")
		if err != nil {
			return st, err
		}
		tgt, err := parseTarget(tm, tp)
		if err != nil {
			return st, err
		}
		tr := Transition{Target: tgt}
		if tr.NextStage, err = text(tm["next_stage"], tp+".next_stage"); err != nil {
			return st, err
		}
		if tr.Audio, _, err = nullableText(tm["audio"], tp+".audio"); err != nil {
			return st, err
		}
		st.Transitions = append(st.Transitions, tr)
	}
	if st.EnterAudio, _, err = nullableText(m["enter_audio"], path+".enter_audio"); err != nil {
		return st, err
	}
	if st.Terminal, err = boolean(m["terminal"], path+".terminal"); err != nil {
		return st, err
	}
	switch {
	case st.Terminal && len(st.Transitions) > 0:
		return st, invalid(path, "is terminal but has transitions; a terminal stage has none")
	case !st.Terminal && len(st.Transitions) == 0:
		return st, invalid(path, "has no transitions but is not terminal; add a transition or mark it terminal")
	case st.Terminal && st.GuideTarget != nil:
		return st, invalid(path+".guide_target", "must be null on a terminal stage")
	case !st.Terminal && st.GuideTarget == nil:
		return st, invalid(path+".guide_target", "is null on a non-terminal stage; name the input the guide points at")
	}
	return st, nil
}

func parseSession(v any, path string) (Session, error) {
	var se Session
	m, err := object(v, path, "slot", "state", "selected", "accent", "label")
	if err != nil {
		return se, err
	}
	slot, err := integer(m["slot"], path+".slot", 0, wire.MaxCapacity-1)
	if err != nil {
		return se, err
	}
	se.Slot = int(slot)
	st, _ := m["state"].(string) // not a string reads as "", refused below
	var ok bool
	if se.State, ok = wire.ParseState(st); !ok || st == "" {
		return se, invalid(path+".state", "must be one of running, waiting_for_reply, user_typing, waiting_for_approval, success, error, cancelled")
	}
	if se.Selected, err = boolean(m["selected"], path+".selected"); err != nil {
		return se, err
	}
	if se.Accent, err = text(m["accent"], path+".accent"); err != nil {
		return se, err
	}
	if !slices.Contains(wire.IdentityAccents(), se.Accent) {
		return se, invalid(path+".accent", "%q is not an identity accent; use one of %v", se.Accent, wire.IdentityAccents())
	}
	if se.Label, err = text(m["label"], path+".label"); err != nil {
		return se, err
	}
	return se, nil
}

// parseTarget reads event, slot and action of a transition or guide target.
func parseTarget(m map[string]any, path string) (Target, error) {
	t := Target{Slot: -1}
	ev, _ := m["event"].(string)
	switch ev {
	case EventSelect:
		slot, ok, err := nullableInteger(m["slot"], path+".slot", 0, wire.MaxCapacity-1)
		if err != nil {
			return t, err
		}
		if !ok {
			return t, invalid(path+".slot", "a select event needs a slot from 0 to 7")
		}
		if m["action"] != nil {
			return t, invalid(path+".action", "must be null for a select event")
		}
		t.Slot = int(slot)
	case EventAction:
		if m["slot"] != nil {
			return t, invalid(path+".slot", "must be null for an action event")
		}
		a, err := action(m["action"], path+".action")
		if err != nil {
			return t, err
		}
		t.Action = a
	default:
		return t, invalid(path+".event", `must be "select" or "action"`)
	}
	t.Event = ev
	return t, nil
}

func action(v any, path string) (wire.Action, error) {
	s, _ := v.(string)
	a, ok := wire.ParseAction(s)
	if !ok || s == "" {
		return "", invalid(path, "must be one of approve, reject, stop, retry")
	}
	return a, nil
}

// link checks the cross-stage rules of §2.2 (3, 7, 8, 9) and resolves
// next_stage names to indexes.
func (d *Demo) link() error {
	index := map[string]int{}
	for i, st := range d.Stages {
		if j, dup := index[st.ID]; dup {
			return invalid(fmt.Sprintf("demo.stages[%d].id", i), "%q is also the id of stage %d; stage ids must be unique", st.ID, j)
		}
		index[st.ID] = i
	}
	initial, ok := index[d.InitialStage]
	if !ok {
		return invalid("demo.initial_stage", "%q names an unknown stage", d.InitialStage)
	}
	d.initial = initial
	for i := range d.Stages {
		st := &d.Stages[i]
		path := fmt.Sprintf("demo.stages[%d]", i)
		for j := range st.Transitions {
			tr := &st.Transitions[j]
			tp := fmt.Sprintf("%s.transitions[%d]", path, j)
			next, ok := index[tr.NextStage]
			if !ok {
				return invalid(tp+".next_stage", "%q is an unknown stage", tr.NextStage)
			}
			tr.next = next
			switch tr.Event {
			case EventSelect:
				if tr.Slot >= len(st.Sessions) {
					return invalid(tp+".slot", "selects slot %d, but the stage has no session there", tr.Slot)
				}
			case EventAction:
				if !slices.Contains(st.Available, tr.Action) {
					return invalid(tp+".action", "%q is not in the stage's available_actions", tr.Action)
				}
			}
		}
		if g := st.GuideTarget; g != nil {
			found := false
			for _, tr := range st.Transitions {
				found = found || tr.Target == *g
			}
			if !found {
				return invalid(path+".guide_target", "matches no transition of the stage; the guide target must equal one transition's event, slot and action")
			}
		}
	}
	reached := make([]bool, len(d.Stages))
	queue := []int{initial}
	reached[initial] = true
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, tr := range d.Stages[i].Transitions {
			if !reached[tr.next] {
				reached[tr.next] = true
				queue = append(queue, tr.next)
			}
		}
	}
	for i, r := range reached {
		if !r {
			return invalid(fmt.Sprintf("demo.stages[%d]", i), "stage %q cannot be reached from the initial stage %q", d.Stages[i].ID, d.InitialStage)
		}
	}
	return nil
}
