package shell_test

import (
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/testenv/axe"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// shellWordsExtra are words of a developer the shell's chrome must not
// show either, beyond axe.Jargon: the names of Claude's tools, the
// runner's words and JSON keys.
var shellWordsExtra = []string{"Bash", "MultiEdit", "NotebookEdit", "WebFetch", "tool_input", "file_path", `"command"`, "shell", "exec"}

// rawLookJS lists visible text of the shell's top document, outside
// Details, that looks like a developer's: a file path, a JSON object or a
// terminal command line.
const rawLookJS = `(() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest("details, [data-details], script, style, template")) continue;
    if (el.getClientRects().length === 0 || getComputedStyle(el).visibility === "hidden") continue;
    const s = n.nodeValue;
    if (/(^|\s)(~|\.{0,2})\/[\w.-]+\/[\w.-]/.test(s) || /\{\s*"/.test(s) || /(^|\s)--[a-z]/.test(s) || /\$\s|\bnpm\b|\bsudo\b/.test(s)) out.push(s.trim().slice(0, 80));
  }
  return out;
})()`

// TestShellPlainWords (issue #26): in every state of the shell's chrome
// over each built-in unique, and in the first-run chat, the visible words
// (and the names read aloud) hold no developer jargon — no "unique",
// "session", JSON, paths or terminal commands — outside Details; what a
// prompt asks about in raw form (the command, the path, the tool) is
// under Details only.
func TestShellPlainWords(t *testing.T) {
	s := startA11yHost(t)
	check := func(x *win, where string, raw []string) {
		t.Helper()
		if found := axe.Words(t, x.ctx, append(append([]string{}, shellWordsExtra...), raw...)...); len(found) > 0 {
			t.Errorf("%s shows developer words outside Details:\n  %s", where, strings.Join(found, "\n  "))
		}
		var looks []string
		x.eval(rawLookJS, &looks)
		if len(looks) > 0 {
			t.Errorf("%s shows paths, JSON or commands outside Details: %q", where, looks)
		}
	}
	for _, u := range []string{"hello", "graph", "chat"} {
		x := openA11yWin(t, s, u, axe.Modes[0], 1100, 760)
		check(x, u+" window", nil)
		walkShell(x, u, func(st shellStep) {
			check(x, u+" window, "+st.Name, st.Raw)
			if len(st.Details) > 0 {
				// The raw request is there, one click away.
				var details string
				x.eval(`[...document.querySelectorAll("details")].map(d => d.textContent).join(" ")`, &details)
				for _, r := range st.Details {
					if !strings.Contains(details, r) {
						t.Errorf("%s: Details %q lack %q", st.Name, details, r)
					}
				}
			}
		})
	}
	x := openA11yWin(t, s, "chat", axe.Modes[0], 1100, 760)
	firstRun(x)
	check(x, "first-run chat", nil)
}

// TestShellPromptWords: the words of the prompts as a person reads them,
// in the real page: approval cards say what Claude will do, the allow
// dialog names the app, not "this unique" or "your user's rights".
func TestShellPromptWords(t *testing.T) {
	s := startA11yHost(t)
	x := openA11yWin(t, s, "hello", axe.Modes[0], 1000, 700)
	x.controlsKnown(0)
	read := func() (q, why string) {
		x.eval(`document.getElementById("prompt-q").textContent`, &q)
		x.eval(`document.getElementById("prompt-why").textContent`, &why)
		return
	}
	for _, c := range []struct{ tool, summary, about, want string }{
		{"Bash", "npm test", "", "Claude wants to run a command on this computer"},
		{"Bash", "npm test", "Run the tests", "Claude wants to run a command on this computer: Run the tests"},
		{"Edit", "/home/me/Lets/notes.txt", "", "Claude wants to change the file notes.txt in Lets"},
		{"Read", "/home/me/Lets/plan.md", "", "Claude wants to read the file plan.md in Lets"},
	} {
		answer := x.approveAsk(c.tool, c.summary, c.about)
		x.poll(`document.querySelector("dialog.prompt.k-approval[open]")`)
		if q, why := read(); q != c.want || why == "" {
			t.Errorf("%s %q: card %q / %q, want %q", c.tool, c.summary, q, why, c.want)
		}
		var name string
		x.eval(`document.querySelector("dialog.prompt").getAttribute("aria-labelledby")`, &name)
		if name != "prompt-q" {
			t.Errorf("the card is named by %q, not its plain heading", name)
		}
		x.eval(`document.querySelector('dialog.prompt [data-choice="deny"]').click(), true`, nil)
		if a := testutil.Wait(t, "the card is answered", answer); !strings.Contains(a, `"choice":"deny"`) {
			t.Errorf("Deny answered %s", a)
		}
		x.poll(`!document.querySelector("dialog.prompt")`)
	}
	x.evalU(`window.__ran = null, lip.run("python", "print(1)").then(r => window.__ran = r, e => window.__ran = {error: e.code}), true`, nil)
	x.poll(`document.querySelector("dialog.prompt.k-exec[open]")`)
	q, why := read()
	if q != "Hello wants to run a Python program on this computer" {
		t.Errorf("allow dialog asks %q", q)
	}
	for _, bad := range []string{"unique", "user's rights", "this app"} {
		if strings.Contains(strings.ToLower(q+" "+why), bad) {
			t.Errorf("allow dialog says %q: %q / %q", bad, q, why)
		}
	}
	if !strings.Contains(why, "Allow it only if you trust Hello") {
		t.Errorf("allow dialog explains %q", why)
	}
	x.eval(`document.querySelector('dialog.prompt [data-choice="deny"]').click(), true`, nil)
	x.pollU(`window.__ran`)
}
