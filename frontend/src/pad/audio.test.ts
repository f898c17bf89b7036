// Run by frontend/pad_audio_ts_test.go through Node's test runner.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseServerMessage, type ExperienceState } from "./protocol";
import { EARCONS, PadSound, SOUND_KEY, SoundPlan, catchUp, earconURL, soundtrackURL } from "./audio";

function exp(fields: Partial<ExperienceState>): ExperienceState {
  const base =
    '{"protocol":1,"type":"experience_state","status":"idle","kind":null,"title":null,"cue_index":null,"caption":null,"detail":null,"elapsed_ms":0,"duration_ms":null,"tempo":1.0,"audio_asset":null,"audio_cue":null,"audio_slot":null,"audio_sequence":0,"start_delay_ms":0,"reason":null}';
  const m = parseServerMessage(JSON.stringify({ ...JSON.parse(base), ...fields }));
  assert.ok(m && m.type === "experience_state", `bad message ${JSON.stringify(fields)}`);
  return m as ExperienceState;
}

const demo = (seq: number, cue: string | null, slot: number | null = null) =>
  exp({ status: "playing", kind: "demo", title: "T", cue_index: 0, audio_cue: cue, audio_slot: slot, audio_sequence: seq });

test("experience_state audio fields parse (web spec §8.4 examples)", () => {
  const m = parseServerMessage(
    '{"protocol":1,"type":"experience_state","status":"starting","kind":"show","title":"A Spark Becomes a Constellation","cue_index":null,"caption":null,"detail":null,"elapsed_ms":0,"duration_ms":43100,"tempo":1.0,"audio_asset":"experiences/audio/constellation-v1.wav","audio_cue":null,"audio_slot":null,"audio_sequence":0,"start_delay_ms":500,"reason":null}',
  ) as ExperienceState;
  assert.equal(m.audio_asset, "experiences/audio/constellation-v1.wav");
  assert.equal(m.start_delay_ms, 500);
  const d = demo(2, "session_selected", 1);
  assert.equal(d.audio_cue, "session_selected");
  assert.equal(d.audio_slot, 1);
  assert.equal(d.audio_sequence, 2);
  // Out-of-range values fall back instead of being trusted.
  const bad = exp({ audio_slot: 8, audio_sequence: -1, start_delay_ms: 1.5 });
  assert.equal(bad.audio_slot, null);
  assert.equal(bad.audio_sequence, 0);
  assert.equal(bad.start_delay_ms, 0);
});

test("case 51: earcon file names", () => {
  assert.equal(earconURL("approve", 3), "./experiences/audio/earcon-approve-3.wav");
  assert.equal(earconURL("approve", null), "./experiences/audio/earcon-approve-none.wav");
  assert.equal(EARCONS.length, 11);
  for (const bad of ["../x", "running", "approve.wav", ""]) assert.equal(earconURL(bad, 0), null);
  assert.equal(earconURL("approve", 8), null);
});

test("soundtrack URLs stay inside the app", () => {
  assert.equal(soundtrackURL("experiences/audio/lets-show-v1.wav"), "./experiences/audio/lets-show-v1.wav");
  for (const bad of [null, "", "/x.wav", "../x.wav", "experiences/../../x.wav", "https://evil/x.wav", "a//b.wav", "a\\b.wav", "//evil/x"]) {
    assert.equal(soundtrackURL(bad), null, String(bad));
  }
});

test("Demo earcons play when the sequence grows (the reference trace, §5.5)", () => {
  const p = new SoundPlan();
  assert.equal(p.earcon(exp({})), null); // initial idle: baseline 0
  assert.equal(p.earcon(demo(1, "question")), "./experiences/audio/earcon-question-none.wav");
  assert.equal(p.earcon(demo(2, "session_selected", 1)), "./experiences/audio/earcon-session_selected-1.wav");
  assert.equal(p.earcon(demo(2, "session_selected", 1)), null); // same event again (a repeat)
  assert.equal(p.earcon(demo(3, "reject", 1)), "./experiences/audio/earcon-reject-1.wav");
  assert.equal(p.earcon(demo(3, null)), null); // a stage without a sound keeps the counter
  assert.equal(p.earcon(exp({ status: "idle", kind: "demo", reason: "complete" })), null);
  // A second Demo continues the numbering.
  assert.equal(p.earcon(demo(4, "question")), "./experiences/audio/earcon-question-none.wav");
  // A smaller number is a restart: it plays.
  assert.equal(p.earcon(demo(1, "question")), "./experiences/audio/earcon-question-none.wav");
  // Unknown cue names are not fetched.
  assert.equal(p.earcon(demo(5, "fanfare")), null);
});

test("joining in the middle of a Demo does not replay the last sound", () => {
  const p = new SoundPlan();
  assert.equal(p.earcon(demo(7, "approve", 2)), null);
  assert.equal(p.earcon(demo(8, "success", 2)), "./experiences/audio/earcon-success-2.wav");
  p.reset(); // reconnect: the server repeats the current state
  assert.equal(p.earcon(demo(8, "success", 2)), null);
});

test("the Show soundtrack follows starting, playing, idle and blocked", () => {
  const p = new SoundPlan();
  const asset = "experiences/audio/lets-show-v1.wav";
  const url = "./" + asset;
  assert.deepEqual(p.track(exp({ status: "starting", kind: "show", audio_asset: asset, start_delay_ms: 500, duration_ms: 1000 })), {
    op: "start",
    url,
    delayMs: 500,
  });
  assert.deepEqual(p.track(exp({ status: "playing", kind: "show", audio_asset: asset, elapsed_ms: 818, tempo: 2, duration_ms: 1000 })), {
    op: "sync",
    url,
    rate: 2,
    position: 0.818,
  });
  assert.deepEqual(p.track(exp({ status: "idle", kind: "show", reason: "stopped" })), { op: "stop" });
  assert.deepEqual(p.track(exp({ status: "blocked", kind: "show", reason: "x" })), { op: "stop" });
  assert.equal(p.track(demo(1, "question")), null);
  assert.deepEqual(p.track(exp({ status: "playing", kind: "show", audio_asset: "../x.wav", duration_ms: 1000 })), { op: "stop" });
});

test("a late Sound on picks the Show up where it is", () => {
  assert.deepEqual(catchUp({ op: "start", url: "u", delayMs: 500 }, 1000, 1200), { op: "start", url: "u", delayMs: 300 });
  assert.deepEqual(catchUp({ op: "start", url: "u", delayMs: 500 }, 1000, 2500), { op: "sync", url: "u", rate: 1, position: 1 });
  assert.deepEqual(catchUp({ op: "sync", url: "u", rate: 2, position: 3 }, 1000, 1500), { op: "sync", url: "u", rate: 2, position: 4 });
});

// A fake <audio> element and timers for PadSound.
class FakeAudio {
  paused = true;
  currentTime = 0;
  playbackRate = 1;
  preload = "";
  plays = 0;
  constructor(public src: string) {}
  play(): Promise<void> {
    this.paused = false;
    this.plays++;
    return Promise.resolve();
  }
  pause(): void {
    this.paused = true;
  }
}

function rig(stored: string | null) {
  const store = new Map<string, string>();
  if (stored) store.set(SOUND_KEY, stored);
  const made: FakeAudio[] = [];
  let now = 0;
  const timers: { at: number; fn: () => void }[] = [];
  (globalThis as any).window = {
    setTimeout: (fn: () => void, ms: number) => timers.push({ at: now + ms, fn }),
    clearTimeout: (id: number) => {
      if (id > 0 && timers[id - 1]) timers[id - 1].fn = () => undefined;
    },
  };
  const s = new PadSound(
    { get: (k) => store.get(k) ?? null, set: (k, v) => void store.set(k, v) },
    (url) => {
      const a = new FakeAudio(url);
      made.push(a);
      return a as unknown as HTMLAudioElement;
    },
    () => now,
  );
  const advance = (ms: number) => {
    now += ms;
    for (const t of timers) if (t.at <= now) { const f = t.fn; t.fn = () => undefined; f(); }
  };
  return { s, store, made, advance };
}

test("Sound is off by default, remembered, and silent while off", () => {
  const { s, store, made } = rig(null);
  assert.equal(s.enabled, false);
  s.onExperience(exp({}));
  s.onExperience(demo(1, "question"));
  assert.equal(made.length, 0, "nothing is loaded while Sound is off");
  s.setEnabled(true);
  assert.equal(store.get(SOUND_KEY), "on");
  assert.equal(made.length, 1, "turning on rings one bell (and unlocks audio)");
  s.onExperience(demo(2, "approve", 1));
  assert.equal(made.at(-1)!.src, "./experiences/audio/earcon-approve-1.wav");
  assert.equal(made.at(-1)!.plays, 1);
  s.setEnabled(false);
  assert.equal(store.get(SOUND_KEY), "off");
  assert.equal(rig("on").s.enabled, true);
  assert.equal(rig("off").s.enabled, false);
});

test("PadSound plays the soundtrack after the lead-in, resyncs and stops", () => {
  const { s, made, advance } = rig("on");
  const asset = "experiences/audio/lets-show-v1.wav";
  s.onExperience(exp({}));
  s.onExperience(exp({ status: "starting", kind: "show", audio_asset: asset, start_delay_ms: 500, duration_ms: 60000 }));
  const track = made.find((a) => a.src === "./" + asset)!;
  assert.ok(track);
  assert.equal(track.paused, true);
  advance(499);
  assert.equal(track.paused, true);
  advance(1);
  assert.equal(track.paused, false, "starts after start_delay_ms");
  track.currentTime = 0.2;
  s.onExperience(exp({ status: "playing", kind: "show", audio_asset: asset, elapsed_ms: 400, duration_ms: 60000 }));
  assert.equal(track.currentTime, 0.2, "within 0.75 s: not moved");
  s.onExperience(exp({ status: "playing", kind: "show", audio_asset: asset, elapsed_ms: 5000, tempo: 2, duration_ms: 60000 }));
  assert.equal(track.currentTime, 5, "more than 0.75 s off: moved");
  assert.equal(track.playbackRate, 2);
  s.onExperience(exp({ status: "idle", kind: "show", reason: "stopped" }));
  assert.equal(track.paused, true);
  assert.equal(track.currentTime, 0);
});

test("turning Sound on during a Show joins it at the right place", () => {
  const { s, made, advance } = rig(null);
  const asset = "experiences/audio/lets-show-v1.wav";
  s.onExperience(exp({ status: "playing", kind: "show", audio_asset: asset, elapsed_ms: 3000, duration_ms: 60000 }));
  advance(1000);
  s.setEnabled(true);
  const track = made.find((a) => a.src === "./" + asset)!;
  assert.ok(track && !track.paused);
  assert.equal(track.currentTime, 4);
  // After a reload with Sound on, the first gesture starts a refused track.
  track.pause();
  s.gesture();
  assert.equal(track.paused, false);
});
