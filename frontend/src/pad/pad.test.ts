// Run by frontend/pad_ts_test.go through Node's test runner.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  actionMessage,
  authenticate,
  parseServerMessage,
  revokeDevice,
  selectSession,
  startExperience,
  type SurfaceMessage,
} from "./protocol";
import {
  OFF_COLOUR,
  accentColour,
  actionList,
  announcement,
  clock,
  formatPairedAt,
  headline,
  lightsFromFrame,
  lightsFromPerformance,
  moveFocus,
  sceneLabel,
  tokenColour,
} from "./model";
import {
  Failures,
  LOCKOUT_WINDOW_MS,
  chooseCredential,
  explainForbidden,
  isLoopbackHost,
  normalizePin,
  parseFragment,
  viewFragment,
  pinDigits,
} from "./pairing";

// The spec's example surface message (web-surface-protocol-1.md §8.3).
const demoSurface =
  '{"protocol":1,"type":"surface","visual_protocol":1,"view":{"selected_state":"waiting_for_approval","frame":1,"sessions":[{"slot":0,"state":"running","selected":false,"accent":"cyan","label":"Builder"},{"slot":1,"state":"waiting_for_approval","selected":true,"accent":"magenta","label":"Reviewer"},{"slot":2,"state":"error","selected":false,"accent":"lime","label":"Tests"}],"available_actions":["approve","reject"],"overflow_count":0,"activity_motion":false},"visual_frame":{"state":[["off","off","off","state:waiting_for_approval:primary","off","off","off"],["off","off","off","state:waiting_for_approval:primary","off","off","off"],["off","off","off","state:waiting_for_approval:primary","off","off","off"],["off","off","off","state:waiting_for_approval:primary","off","off","off"],["off","off","off","state:waiting_for_approval:primary","off","off","off"],["off","off","off","off","off","off","off"],["off","off","off","off","off","off","off"],["off","off","off","state:waiting_for_approval:primary","off","off","off"]],"selectors":["accent:cyan:unselected","accent:magenta:selected","accent:lime:unselected","off","off","off","off","off"],"statuses":["state:running:summary","state:waiting_for_approval:summary","state:error:summary","off","off","off","off","off"],"actions":{"approve":"action:approve:enabled","reject":"action:reject:enabled","stop":"off","retry":"off"},"overflow":"off"}}';

function surface(): SurfaceMessage {
  const m = parseServerMessage(demoSurface);
  assert.ok(m && m.type === "surface");
  return m as SurfaceMessage;
}

test("the spec's surface example parses", () => {
  const m = surface();
  assert.equal(m.view.sessions.length, 3);
  assert.equal(m.view.selected_state, "waiting_for_approval");
  assert.deepEqual(m.view.available_actions, ["approve", "reject"]);
});

test("malformed or foreign messages are ignored, not half-drawn", () => {
  const bad = [
    "not json",
    "[1,2]",
    '{"protocol":2,"type":"surface"}',
    '{"type":"remote_revoked"}',
    '{"protocol":1,"type":"nope"}',
    demoSurface.replace('"visual_protocol":1', '"visual_protocol":2'),
    demoSurface.replace('"slot":2', '"slot":8'),
    demoSurface.replace('"accent":"lime"', '"accent":"black"'),
    demoSurface.replace('"state":"error"', '"state":"sleeping"'),
    demoSurface.replace('["approve","reject"]', '["launch"]'),
    demoSurface.replace('"overflow":"off"', '"overflow":1'),
    '{"protocol":1,"type":"pairing","pin":"12345","pairing_url":"x","qr_data_uri":"data:image/svg+xml,","expires_in":300}',
    '{"protocol":1,"type":"pairing","pin":"123456","pairing_url":"x","qr_data_uri":"javascript:alert(1)","expires_in":300}',
    '{"protocol":1,"type":"performance_frame","grid":[],"top":[],"right":[]}',
    '{"protocol":1,"type":"error","code":"x"}',
  ];
  for (const raw of bad) assert.equal(parseServerMessage(raw), null, raw);
});

test("authenticated, pairing, error, devices and experience messages parse", () => {
  assert.deepEqual(
    parseServerMessage('{"protocol":1,"type":"authenticated","admin":false,"session_token":"abc","lan_enabled":true}'),
    { type: "authenticated", admin: false, session_token: "abc", lan_enabled: true },
  );
  const p = parseServerMessage(
    '{"protocol":1,"type":"pairing","pin":"042917","pairing_url":"http://192.168.1.20:8765/#pair=x","qr_data_uri":"data:image/svg+xml;charset=utf-8,%3Csvg%3E","expires_in":120}',
  );
  assert.ok(p && p.type === "pairing" && p.pin === "042917" && p.expires_in === 120);
  assert.deepEqual(parseServerMessage('{"protocol":1,"type":"error","code":"forbidden","error":"invalid or expired credential"}'), {
    type: "error",
    code: "forbidden",
    error: "invalid or expired credential",
  });
  const d = parseServerMessage(
    '{"protocol":1,"type":"devices","devices":[{"id":"a1","name":"Device 1","paired_at":"2026-01-02T10:00:00Z","connected":2},{"id":"b2","name":"Device 2","paired_at":"","connected":false}]}',
  );
  assert.ok(d && d.type === "devices");
  assert.deepEqual(
    d.devices.map((x) => [x.id, x.connected]),
    [
      ["a1", true],
      ["b2", false],
    ],
  );
  const e = parseServerMessage(
    '{"protocol":1,"type":"experience_state","status":"playing","kind":"demo","title":"Three Agents, One Surface","cue_index":1,"caption":"Approve the review.","detail":"d","elapsed_ms":0,"duration_ms":null,"tempo":1.0,"audio_asset":null,"audio_cue":"session_selected","audio_slot":1,"audio_sequence":2,"start_delay_ms":0,"reason":null}',
  );
  assert.ok(e && e.type === "experience_state" && e.caption === "Approve the review." && e.tempo === 1);
});

test("client messages are exactly the protocol's", () => {
  assert.equal(authenticate(null), '{"protocol":1,"type":"authenticate"}');
  assert.equal(authenticate("042917"), '{"protocol":1,"type":"authenticate","credential":"042917"}');
  assert.equal(actionMessage("approve"), '{"protocol":1,"type":"action","action":"approve"}');
  assert.equal(selectSession(2), '{"protocol":1,"type":"select_session","slot":2}');
  assert.equal(startExperience("show"), '{"protocol":1,"type":"start_experience","kind":"show"}');
  assert.equal(revokeDevice("a1"), '{"protocol":1,"type":"revoke_device","device":"a1"}');
});

test("token colours follow visual-protocol-1.md §6.2", () => {
  assert.equal(tokenColour("off"), "#11171c");
  assert.equal(tokenColour("nonsense"), OFF_COLOUR);
  assert.equal(tokenColour("idle"), "#46535c");
  assert.equal(tokenColour("activity"), "#a9d5ff");
  assert.equal(tokenColour("system:overflow"), "#f0b63f");
  assert.equal(tokenColour("state:running:primary"), "#3389e8");
  assert.equal(tokenColour("state:cancelled:summary"), "#505960");
  assert.equal(tokenColour("action:retry:enabled"), "#3389e8");
  assert.equal(tokenColour("action:stop:enabled"), "#ef5b64");
  assert.equal(tokenColour("accent:cyan:selected"), "#00aebb");
  assert.equal(tokenColour("state:running:bright"), OFF_COLOUR);
});

test("unselected accents are × 0.48 rounded (the spec's table)", () => {
  const want: Record<string, string> = {
    cyan: "#00545a",
    magenta: "#601e60",
    lime: "#365916",
    orange: "#6e3c10",
    violet: "#392960",
    teal: "#004a3f",
    rose: "#682439",
    sky: "#1a4168",
  };
  for (const [a, hex] of Object.entries(want)) assert.equal(accentColour(a as never, false), hex, a);
});

test("the 80 lights sit where §2 puts them", () => {
  const l = lightsFromFrame(surface().visual_frame);
  assert.equal(l.grid.length, 8);
  assert.ok(l.grid.every((r) => r.length === 8));
  assert.equal(l.grid[0][3], "#f0b63f"); // the exclamation mark
  assert.equal(l.grid[5][3], OFF_COLOUR);
  assert.equal(l.grid[1][7], "#9c7628"); // status of slot 1 in column 7
  assert.deepEqual(l.top, ["#55c76a", "#ef5b64", OFF_COLOUR, OFF_COLOUR, OFF_COLOUR, OFF_COLOUR, OFF_COLOUR, OFF_COLOUR]);
  assert.equal(l.right[1], "#c83ec9");
  assert.equal(l.right[0], "#00545a");
  const f = surface().visual_frame;
  f.overflow = "system:overflow";
  f.actions.retry = "action:retry:enabled";
  f.actions.stop = "action:stop:enabled";
  const l2 = lightsFromFrame(f);
  assert.equal(l2.top[4], "#f0b63f");
  assert.equal(l2.top[6], "#3389e8");
  assert.equal(l2.top[7], "#ef5b64");
});

test("a Show frame is drawn as sent", () => {
  const grid = Array.from({ length: 8 }, () => Array(8).fill("#000000"));
  grid[4][3] = "#00deff";
  const top = Array(8).fill("#000000");
  top[0] = "#00deff";
  const right = Array(8).fill("#000000");
  right[7] = "#00deff";
  const m = parseServerMessage(JSON.stringify({ protocol: 1, type: "performance_frame", grid, top, right }));
  assert.ok(m && m.type === "performance_frame");
  const l = lightsFromPerformance(m);
  assert.equal(l.grid[4][3], "#00deff");
  assert.equal(l.top[0], "#00deff");
  assert.equal(l.right[7], "#00deff");
  assert.equal(parseServerMessage(JSON.stringify({ protocol: 1, type: "performance_frame", grid, top: [...top.slice(1), "#FFFFFF"], right })), null);
});

test("headline and action words", () => {
  const v = surface().view;
  assert.deepEqual(headline(v), { title: "Reviewer is waiting for your approval.", detail: "You can Approve or Reject now." });
  assert.equal(actionList(["retry", "stop", "approve"]), "Approve, Stop or Retry");
  assert.equal(actionList([]), "");
  assert.equal(headline({ ...v, sessions: [] }).title, "No agents yet");
  assert.equal(headline({ ...v, selected_state: null, sessions: v.sessions.map((s) => ({ ...s, selected: false })) }).title, "Pick an agent");
});

test("a waiting agent is never shown with \"Nothing to press\"", () => {
  const v = surface().view;
  // Waiting for approval without Approve or Reject on the pad (the agent
  // did not subscribe, or its subscription has not landed yet).
  const h = headline({ ...v, available_actions: [] });
  assert.equal(h.title, "Reviewer is waiting for your approval.");
  assert.equal(h.detail, "Answer it where it runs; the pad has no Approve button for it.");
  const reply = headline({ ...v, selected_state: "waiting_for_reply", available_actions: [] });
  assert.equal(reply.detail, "Reply to it where it runs; the pad has no button for that.");
  // Every state, with and without actions: a waiting headline never
  // says there is nothing to do, and "Nothing to press" only comes
  // without actions.
  const states = ["running", "waiting_for_reply", "user_typing", "waiting_for_approval", "success", "error", "cancelled"] as const;
  for (const st of states) {
    for (const acts of [[], ["stop"], ["approve", "reject"]] as const) {
      const x = headline({ ...v, selected_state: st, available_actions: [...acts] });
      if (st.startsWith("waiting_for")) assert.ok(!/nothing/i.test(x.detail), `${st} with [${acts}]: ${x.detail}`);
      assert.equal(/Nothing to press/.test(x.detail), acts.length === 0 && !st.startsWith("waiting_for"), `${st} with [${acts}]: ${x.detail}`);
    }
  }
});

test("screen readers hear what changed, and only that", () => {
  const v = surface().view;
  assert.equal(announcement(v, v), "");
  const builderSelected = {
    ...v,
    selected_state: "running" as const,
    available_actions: ["stop" as const],
    sessions: v.sessions.map((s) => ({ ...s, selected: s.slot === 0 })),
  };
  assert.equal(announcement(v, builderSelected), "Builder selected: is working. Stop available.");
  const testsAsk = {
    ...v,
    sessions: v.sessions.map((s) => (s.slot === 2 ? { ...s, state: "waiting_for_reply" as const } : s)),
    overflow_count: 2,
  };
  assert.equal(announcement(v, testsAsk), "Tests is waiting for your reply (Scene 3). 2 more agents have no Scene.");
  const joined = { ...v, sessions: [...v.sessions, { slot: 3, state: "running" as const, selected: false, accent: "orange" as const, label: "Docs" }] };
  assert.equal(announcement(v, joined), "Docs joined on Scene 4.");
});

test("scene labels say who, what and whether selected", () => {
  const v = surface().view;
  assert.equal(sceneLabel(1, v.sessions[1]), "Scene 2: Reviewer, needs approval, selected");
  assert.equal(sceneLabel(5, null), "Scene 6: empty");
});

test("arrow keys move around the pad's buttons", () => {
  assert.deepEqual(moveFocus({ x: 0, y: -1 }, "ArrowRight"), { x: 1, y: -1 });
  assert.deepEqual(moveFocus({ x: 1, y: -1 }, "ArrowRight"), { x: 6, y: -1 }); // skips reserved + overflow
  assert.deepEqual(moveFocus({ x: 7, y: -1 }, "ArrowDown"), { x: 8, y: 0 });
  assert.deepEqual(moveFocus({ x: 8, y: 0 }, "ArrowUp"), { x: 7, y: -1 });
  assert.deepEqual(moveFocus({ x: 8, y: 3 }, "ArrowDown"), { x: 8, y: 4 });
  assert.deepEqual(moveFocus({ x: 8, y: 7 }, "ArrowDown"), { x: 8, y: 7 });
  assert.deepEqual(moveFocus({ x: 0, y: -1 }, "ArrowLeft"), { x: 0, y: -1 });
  assert.deepEqual(moveFocus({ x: 8, y: 5 }, "Home"), { x: 0, y: -1 });
  assert.deepEqual(moveFocus({ x: 0, y: -1 }, "End"), { x: 8, y: 7 });
});

test("views: the tray's Pair a phone opens view=pair; anything else is the pad", () => {
  assert.deepEqual(parseFragment("#admin=abc&view=pair"), { admin: "abc", pair: null, view: "pair" });
  assert.deepEqual(parseFragment("#view=pair"), { admin: null, pair: null, view: "pair" });
  assert.equal(parseFragment("#view=other").view, "pad");
  // A phone's #pair=<secret> is a credential, not the pairing view.
  assert.equal(parseFragment("#pair=s3cr3t").view, "pad");
  assert.equal(viewFragment("pair"), "#view=pair");
  assert.equal(viewFragment("pad"), "");
});

test("credentials: fragment, then stored admin, then stored session; a typed PIN first", () => {
  const none = { admin: null, pair: null };
  assert.deepEqual(parseFragment("#admin=abc"), { admin: "abc", pair: null, view: "pad" });
  assert.deepEqual(parseFragment("#pair=s3cr3t"), { admin: null, pair: "s3cr3t", view: "pad" });
  assert.deepEqual(parseFragment(""), { ...none, view: "pad" });
  assert.deepEqual(parseFragment("#pair=" + "x".repeat(300)), { ...none, view: "pad" });
  const stored = { admin: "A", session: "S" };
  assert.deepEqual(chooseCredential({ admin: "fa", pair: "fp" }, stored, null), { credential: "fa", kind: "admin" });
  assert.deepEqual(chooseCredential({ admin: null, pair: "fp" }, stored, null), { credential: "fp", kind: "secret" });
  assert.deepEqual(chooseCredential(none, stored, null), { credential: "A", kind: "admin" });
  assert.deepEqual(chooseCredential(none, { admin: null, session: "S" }, null), { credential: "S", kind: "session" });
  assert.deepEqual(chooseCredential(none, { admin: null, session: null }, null), { credential: null, kind: "none" });
  assert.deepEqual(chooseCredential(none, stored, "042917"), { credential: "042917", kind: "pin" });
});

test("PINs: six digits, spaces and dashes removed", () => {
  assert.equal(normalizePin(" 042 917 "), "042917");
  assert.equal(normalizePin("042-917"), "042917");
  assert.equal(normalizePin("04291"), null);
  assert.equal(normalizePin("0429178"), null);
  assert.equal(normalizePin("04291a"), null);
  assert.equal(pinDigits("04a2-9 1789"), "042917");
});

test("the lock-out mirrors the server: 5 failures within 60 s, until the oldest ages out", () => {
  const f = new Failures();
  const t0 = 1_000_000;
  for (let i = 0; i < 4; i++) f.record(t0 + i * 100);
  assert.equal(f.lockedFor(t0 + 400), 0);
  assert.equal(f.triesLeft(t0 + 400), 1);
  f.record(t0 + 400);
  assert.equal(f.lockedFor(t0 + 400), LOCKOUT_WINDOW_MS - 400);
  assert.equal(f.lockedFor(t0 + 59_900), 100);
  assert.equal(f.lockedFor(t0 + 60_000), 0); // free exactly 60 s after the first
  f.record(t0 + 30_000); // ignored while locked (the server does not count it)
  assert.equal(f.recent(t0 + 30_000).length, 5);
  const again = new Failures(f.toJSON());
  assert.equal(again.lockedFor(t0 + 1000), LOCKOUT_WINDOW_MS - 1000);
  again.clear();
  assert.equal(again.lockedFor(t0 + 1000), 0);
});

test("forbidden is explained by what was tried", () => {
  const f = new Failures();
  f.record(0);
  assert.match(explainForbidden("pin", f, 0).detail, /4 tries left/);
  assert.match(explainForbidden("pin", f, 0).detail, /for 5 minutes/);
  assert.equal(explainForbidden("secret", f, 0).title, "This pairing link has expired");
  assert.equal(explainForbidden("session", f, 0).title, "This phone needs to pair again");
  assert.equal(explainForbidden("admin", f, 0).title, "This admin link is out of date");
  for (let i = 1; i < 5; i++) f.record(i);
  const locked = explainForbidden("pin", f, 10);
  assert.equal(locked.title, "Too many wrong PINs");
  assert.equal(locked.lockedMs, LOCKOUT_WINDOW_MS - 10);
  assert.match(locked.detail, /60 s/);
});

test("only the loopback names the server accepts count as this computer", () => {
  assert.ok(isLoopbackHost("127.0.0.1"));
  assert.ok(isLoopbackHost("LOCALHOST"));
  assert.ok(!isLoopbackHost("127.0.0.2"));
  assert.ok(!isLoopbackHost("192.168.1.10"));
});

test("clock and paired-at formats", () => {
  assert.equal(clock(300), "5:00");
  assert.equal(clock(7.2), "0:08");
  assert.equal(clock(-3), "0:00");
  const now = new Date(2026, 4, 3, 15, 0, 0);
  assert.equal(formatPairedAt(new Date(2026, 4, 3, 14, 5).toISOString(), now), "today 14:05");
  assert.equal(formatPairedAt("", now), "");
  assert.equal(formatPairedAt("garbage", now), "");
  assert.notEqual(formatPairedAt(String(new Date(2026, 4, 1).getTime() / 1000), now), "");
});
