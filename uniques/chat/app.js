// Chat: the shell's chat panel as the whole window. This page is only the
// band above it (status, "New chat", "Send to Claude"); the conversation
// lives in the shell, where the human types and Claude streams with
// chat.say. The page hears the finished turns through lip.chat.onChange,
// saves them after each turn (talk.snapshot), hands them over
// (talk.export) and puts them back (talk.load).
(function () {
  "use strict";

  const $ = (id) => document.getElementById(id);
  const status = $("status");
  const handoff = $("handoff");
  const fresh = $("new");
  const stop = $("stop");
  const folder = $("folder");

  const BAND = 56;
  const WELCOME = "Hi! I'm your Lets companion, and Claude is right here with us. Ask anything you like — you can paste an image too.";
  const SUGGESTIONS = [
    "Help me plan my week",
    "Explain something to me simply",
    "Brainstorm ideas with me",
    "Help me write a kind message",
  ];
  // An envelope may carry 256 KiB; stay well below it.
  const MAX_BYTES = 180000;
  const MAX_TEXT = 60000;

  const lip = window.lip;
  if (!lip || !lip.chat) {
    // A plain browser: no shell, no chat. Say so kindly.
    document.body.classList.add("outside-lets");
    $("outside").hidden = false;
    status.textContent = "Open this in Lets to chat with Claude.";
    return;
  }

  let messages = [];
  let handedOver = false;
  let confirmTimer = 0;

  function say(text) {
    status.textContent = text;
  }

  function plural(n, one, many) {
    return n === 1 ? `1 ${one}` : `${n} ${many}`;
  }

  function lineOf(m) {
    const who = m.role === "claude" ? "Claude" : "You";
    let text = m.kind === "choice" ? `${who} (picked): ${m.text}` : `${who}: ${m.text}`;
    for (const a of m.attachments || []) text += `\n[image: ${a.path}]`;
    return text;
  }

  function summaryOf(list, dropped) {
    if (!list.length) return "An empty conversation";
    const first = list.find((m) => m.role === "human" && m.kind !== "choice") || list[0];
    const head = first.text.length > 70 ? first.text.slice(0, 69) + "…" : first.text;
    const total = list.length + (dropped || 0);
    return `${plural(total, "message", "messages")}, it began: "${head}"`;
  }

  function size(value) {
    return new TextEncoder().encode(JSON.stringify(value)).length;
  }

  // The conversation for Claude: newest turns first to survive the size cap.
  function pack(list, withText) {
    let keep = list.slice();
    let dropped = 0;
    for (;;) {
      const data = { summary: summaryOf(keep, dropped), messages: keep };
      if (withText) {
        let text = keep.map(lineOf).join("\n\n");
        if (text.length > MAX_TEXT) text = "…" + text.slice(text.length - MAX_TEXT + 1);
        data.text = text;
      }
      if (dropped) data.dropped = dropped;
      if (keep.length <= 1 || size(data) <= MAX_BYTES) return data;
      const cut = Math.max(1, Math.floor(keep.length / 20));
      keep = keep.slice(cut);
      dropped += cut;
    }
  }

  function render() {
    const n = messages.length;
    handoff.disabled = handedOver || n === 0;
    fresh.disabled = handedOver || n === 0;
  }

  lip.chat.dock({ band: BAND });
  lip.chat.intro(WELCOME, SUGGESTIONS);

  lip.chat.onChange((list, why) => {
    messages = Array.isArray(list) ? list : [];
    // With "handoff": "stay" the window stays open: a new turn after a
    // handoff may be handed over again.
    if (why !== "loaded" && why !== "docked") handedOver = false;
    render();
    switch (why) {
      case "sent":
        say("Sent — Claude answers right here.");
        lip.snapshot(pack(messages, false));
        break;
      case "chose":
        say("Got your choice.");
        lip.snapshot(pack(messages, false));
        break;
      case "answered":
        say(`Saved · ${plural(messages.length, "message", "messages")}`);
        lip.snapshot(pack(messages, false));
        break;
      case "loaded":
        if (messages.length) say(`Your conversation is back · ${plural(messages.length, "message", "messages")}`);
        break;
    }
  });

  handoff.addEventListener("click", () => {
    if (!messages.length || handedOver) return;
    handedOver = true;
    lip.export(pack(messages, true));
    render();
    say("Handed to Claude — the answer comes in your conversation with Claude.");
  });

  // "New chat" asks once more before it clears anything.
  fresh.addEventListener("click", () => {
    if (fresh.dataset.confirm !== "true") {
      fresh.dataset.confirm = "true";
      fresh.textContent = "Clear it all?";
      fresh.setAttribute("aria-label", "Press again to clear the conversation and start over");
      say("Press “Clear it all?” again to start over; it is saved until then.");
      clearTimeout(confirmTimer);
      confirmTimer = setTimeout(unconfirm, 5000);
      return;
    }
    unconfirm();
    const cleared = messages.length;
    lip.chat.load([]);
    lip.chat.intro(WELCOME, SUGGESTIONS);
    lip.emit("talk.new", { cleared });
    lip.snapshot({ summary: "An empty conversation", messages: [] });
    say("A fresh start. What's on your mind?");
  });

  function unconfirm() {
    clearTimeout(confirmTimer);
    delete fresh.dataset.confirm;
    fresh.textContent = "New chat";
    fresh.removeAttribute("aria-label");
  }

  lip.on("talk.load", (data) => {
    lip.chat.load(Array.isArray(data.messages) ? data.messages : []);
  });

  // When Lets runs Claude behind this window (issue #15) it says whether
  // Claude is working (then Stop shows) and in which folder.
  lip.on("talk.agent", (data) => {
    // Lets itself runs Claude here: there is no terminal to hand over to.
    handoff.hidden = true;
    const working = data.working === true;
    stop.hidden = !working;
    stop.disabled = false;
    // Where Claude is (missing, installing, signing in, ready), so the
    // band never says Claude is here while it is not.
    if (typeof data.status === "string" && data.status) say(data.status);
    if (typeof data.folder === "string") {
      folder.hidden = data.folder === "";
      folder.textContent = data.folder ? `Working folder: ${data.folder}` : "";
      folder.title = data.folder;
    }
  });

  stop.addEventListener("click", () => {
    if (stop.hidden || stop.disabled) return;
    stop.disabled = true;
    lip.emit("talk.stop", {});
    say("Stopping…");
  });

  lip.on("talk.welcome", (data) => {
    const text = typeof data.text === "string" ? data.text : "";
    const chips = Array.isArray(data.suggestions) ? data.suggestions.filter((s) => typeof s === "string") : [];
    if (text) lip.chat.intro(text, chips);
  });

  // A right-click on the band brings the companion with the conversation's size.
  lip.context(() => ({ area: "chat", messages: messages.length, summary: summaryOf(messages, 0) }));

  render();
  lip.ready();
})();
