package codexexec

import (
	"errors"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/wire"
)

// A whole run as Codex 0.169 prints it, with a config warning as an error
// item: running, then success; the warning never turns the task red; the
// agent's message is what the terminal gets.
func TestTaskFollowsARun(t *testing.T) {
	lines := []string{
		`{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"error","message":"unknown config key: foo\nignored"}}`,
		`{"type":"turn.started"}`,
		`{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"a\n","exit_code":0,"status":"completed"}}`,
		`{"type":"item.completed","item":{"id":"item_2","type":"agent_message","text":"Done.\nTwo files."}}`,
		`{"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122}}`,
	}
	var task Task
	var states []wire.State
	var said, warned []string
	for _, l := range lines {
		ev, err := ParseLine([]byte(l + "\n"))
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		u := task.Apply(ev)
		if u.State != "" {
			states = append(states, u.State)
		}
		if u.Say != "" {
			said = append(said, u.Say)
		}
		if u.Warn != "" {
			warned = append(warned, u.Warn)
		}
	}
	if got := strings.Join(stateNames(states), ","); got != "running,success" {
		t.Errorf("states %s, want running,success", got)
	}
	if len(said) != 1 || said[0] != "Done.\nTwo files." {
		t.Errorf("said %q", said)
	}
	if len(warned) != 1 || warned[0] != "unknown config key: foo ignored" {
		t.Errorf("warned %q", warned)
	}
	if task.ThreadID() != "0199a213-81c0-7800-8aa1-bbab2a035a53" || task.State() != wire.StateSuccess || task.Failed() != "" {
		t.Errorf("task %v failed %q", &task, task.Failed())
	}
}

func stateNames(s []wire.State) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = string(x)
	}
	return out
}

// turn.failed and a top-level error turn the task red with their words;
// a later turn starts it running again.
func TestTaskFailures(t *testing.T) {
	for _, c := range []struct{ line, why string }{
		{`{"type":"turn.failed","error":{"message":"stream disconnected before completion"}}`, "stream disconnected before completion"},
		{`{"type":"error","message":"unexpected status 401 Unauthorized"}`, "unexpected status 401 Unauthorized"},
		{`{"type":"turn.failed"}`, "Codex stopped with an error"},
	} {
		var task Task
		task.Apply(mustParse(t, `{"type":"turn.started"}`))
		u := task.Apply(mustParse(t, c.line))
		if u.State != wire.StateError || u.Failed != c.why || task.Failed() != c.why {
			t.Errorf("%s: update %+v, want error with %q", c.line, u, c.why)
		}
		if u := task.Apply(mustParse(t, `{"type":"turn.started"}`)); u.State != wire.StateRunning {
			t.Errorf("after a failure a new turn: %+v", u)
		}
	}
}

// A state is reported once: the same state again is no update.
func TestTaskReportsChangesOnly(t *testing.T) {
	var task Task
	for i, want := range []wire.State{wire.StateRunning, "", "", ""} {
		line := []string{`{"type":"turn.started"}`, `{"type":"item.started","item":{"id":"a","type":"reasoning"}}`, `{"type":"item.updated","item":{"id":"a","type":"todo_list"}}`, `{"type":"something.new"}`}[i]
		if u := task.Apply(mustParse(t, line)); u.State != want {
			t.Errorf("%s: state %q, want %q", line, u.State, want)
		}
	}
}

func mustParse(t *testing.T, l string) Event {
	t.Helper()
	ev, err := ParseLine([]byte(l))
	if err != nil {
		t.Fatalf("%s: %v", l, err)
	}
	return ev
}

// Bad lines get a specific *LineError.
func TestParseLineRefuses(t *testing.T) {
	for _, c := range []struct{ line, problem string }{
		{``, ProblemNotObject},
		{`[1]`, ProblemNotObject},
		{`null`, ProblemNotObject},
		{`"x"`, ProblemNotObject},
		{`{"type":"turn.started"} {"type":"x"}`, ProblemNotObject},
		{`{"thread_id":"x"}`, ProblemNoType},
		{`{"type":""}`, ProblemNoType},
		{"{\"type\":\"\xff\"}", ProblemBadUTF8},
		{`{"type":"turn.started"`, ProblemNotObject},
		{`{"type":"item.completed","item":"nope"}`, ProblemNotObject},
		{"{\"type\":\"x\",\"pad\":\"" + strings.Repeat("a", MaxLineBytes) + "\"}", ProblemTooLong},
	} {
		_, err := ParseLine([]byte(c.line))
		var le *LineError
		if !errors.As(err, &le) || le.Problem != c.problem {
			t.Errorf("%.40q: error %v, want problem %q", c.line, err, c.problem)
		}
	}
}

// The agent's words keep their lines but lose what could drive the
// terminal.
func TestForTerminal(t *testing.T) {
	got := ForTerminal("ok\n\tnext \x1b]0;owned\x07 \u202eevil\x9b2J \xff")
	if want := "ok\n\tnext \uFFFD]0;owned\uFFFD \uFFFDevil\uFFFD2J \uFFFD"; got != want {
		t.Errorf("ForTerminal = %q, want %q", got, want)
	}
}
