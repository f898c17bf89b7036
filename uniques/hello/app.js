// Hello: the smallest unique. It speaks only LIP through window.lip, which
// Lets injects before this script runs.
(function () {
  "use strict";

  const $ = (id) => document.getElementById(id);
  const hand = $("hand");
  const form = $("note-form");
  const note = $("note");
  const list = $("notes");
  const empty = $("empty");
  const count = $("count");
  const claude = $("claude");
  const status = $("status");
  const handoff = $("handoff");

  const MAX_NOTES = 50;
  let notes = [];

  // Outside Lets (a plain browser) there is no window.lip: keep the page
  // usable and say why nothing reaches Claude.
  const lip = window.lip || {
    emit() {}, on() {}, export() {}, snapshot() {}, ready() {}, context() {},
  };
  if (!window.lip) say("Open this in Lets to talk to Claude.", true);

  function say(text, warn) {
    status.textContent = text;
    status.classList.toggle("warn", Boolean(warn));
  }

  function summary() {
    if (notes.length === 0) return "No notes";
    const last = notes[notes.length - 1].text;
    const head = last.length > 80 ? last.slice(0, 79) + "…" : last;
    return notes.length === 1 ? `1 note: ${head}` : `${notes.length} notes, the last: ${head}`;
  }

  function render() {
    list.replaceChildren(
      ...notes.map((n) => {
        const li = document.createElement("li");
        li.textContent = n.text;
        li.dataset.note = n.text;
        const when = new Date(n.at);
        if (!Number.isNaN(when.getTime())) {
          const t = document.createElement("time");
          t.dateTime = when.toISOString();
          t.textContent = when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
          li.append(t);
        }
        return li;
      }),
    );
    empty.hidden = notes.length > 0;
    count.textContent = String(notes.length);
    handoff.disabled = notes.length === 0;
  }

  function cleanNotes(value) {
    if (!Array.isArray(value)) return [];
    return value
      .filter((n) => n && typeof n.text === "string" && n.text.trim() !== "")
      .slice(-MAX_NOTES)
      .map((n) => ({ text: n.text.slice(0, 500), at: typeof n.at === "string" ? n.at : new Date().toISOString() }));
  }

  $("wave").addEventListener("click", () => {
    lip.emit("hello.wave", {});
    hand.classList.remove("waving");
    void hand.offsetWidth; // restart the animation
    hand.classList.add("waving");
    say("You waved.");
  });

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = note.value.trim();
    if (!text) {
      say("Write something first.", true);
      note.focus();
      return;
    }
    notes = [...notes, { text, at: new Date().toISOString() }].slice(-MAX_NOTES);
    lip.emit("hello.note", { text });
    lip.snapshot({ summary: summary(), notes });
    note.value = "";
    render();
    say("Sent to Claude.");
  });

  note.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      form.requestSubmit();
    }
  });

  handoff.addEventListener("click", () => {
    if (notes.length === 0) return;
    lip.export({ summary: summary(), notes });
    say("Handed to Claude — the answer comes in your conversation.");
  });

  lip.on("hello.show", (data) => {
    const text = typeof data.text === "string" ? data.text.trim() : "";
    claude.textContent = text || "…";
    claude.classList.toggle("empty-answer", !text);
  });

  lip.on("hello.load", (data) => {
    notes = cleanNotes(data.notes);
    render();
    say(notes.length ? "Your saved notes are back." : "");
  });

  // Right-click on a note brings the companion with that note as context.
  lip.context((target) => {
    const li = target && target.closest ? target.closest("li[data-note]") : null;
    return li ? { note: li.dataset.note } : { area: target && target.id ? target.id : "card" };
  });

  render();
  lip.ready();
})();
