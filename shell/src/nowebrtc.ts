// WebRTC lets a page send UDP to any host and port (a STUN request is
// enough), around the connect-src of the unique's CSP. The host also sends
// CSP `webrtc 'block'`, but Chromium does not enforce it yet, so the SDK
// takes the API away from the unique: from its own window first thing, and
// from every same-origin frame it makes, whose window starts with fresh
// globals (issue #10). The host serves every non-HTML file of the unique
// with CSP `sandbox`, so a frame showing such a file is another origin and
// cannot hand the unique its globals either.
//
// This is a best effort inside an engine that offers no switch: a frame is
// disarmed when it is inserted, reached through contentWindow, loaded, or
// seen by a mutation observer. The native window (WebKitGTK) has WebRTC
// switched off altogether.

type AnyWindow = Window & typeof globalThis & Record<string, unknown>;

const WEBRTC_NAME = /^(webkit|moz)?RTC/;

// disarmed remembers the globals already handled, by their own Object
// constructor: a frame's WindowProxy stays the same when it navigates, but
// each new document brings a new global with a new Object, which the
// unique cannot forge. (A WeakSet keeps no frame alive.)
const disarmed = new WeakSet<object>();

/** Removes WebRTC from win and watches its frames, once per window. */
export function disarmWebRTC(win: Window): void {
  let w: AnyWindow;
  let realm: object;
  try {
    w = win as AnyWindow;
    // Reading a property of a cross-origin window throws: nothing to do
    // there, the unique cannot reach its globals either.
    realm = w.Object as object;
  } catch {
    return;
  }
  if (!realm || disarmed.has(realm)) {
    sweep(w);
    return;
  }
  disarmed.add(realm);
  removeAPI(w);
  hookFrames(w);
  sweep(w);
}

function removeAPI(w: AnyWindow): void {
  for (const name of Object.getOwnPropertyNames(w)) {
    if (!WEBRTC_NAME.test(name)) continue;
    try {
      delete w[name];
    } catch {
      // fall through to the override
    }
    if (name in w) define(w, name, { value: undefined, writable: false });
  }
}

// define replaces a property for good, and never throws: a property that
// cannot be replaced keeps its engine value.
function define(obj: object, name: string, desc: PropertyDescriptor): void {
  try {
    Object.defineProperty(obj, name, { ...desc, configurable: false });
  } catch {
    // already ours, or frozen by the engine
  }
}

/** Disarms every frame of w (and theirs). */
function sweep(w: AnyWindow): void {
  let n = 0;
  try {
    n = w.length;
  } catch {
    return;
  }
  for (let i = 0; i < n && i < 1000; i++) {
    let child: Window | null = null;
    try {
      child = (w as unknown as Record<number, Window>)[i] ?? null;
    } catch {
      child = null;
    }
    if (child) disarmWebRTC(child);
  }
}

// DOM methods that can put a frame into a document; after each one the
// window's frames are swept before the unique's next line runs.
const INSERTERS: Record<string, string[]> = {
  Node: ["appendChild", "insertBefore", "replaceChild"],
  Element: ["append", "prepend", "before", "after", "replaceWith", "replaceChildren", "insertAdjacentElement", "insertAdjacentHTML", "setHTMLUnsafe", "moveBefore"],
  CharacterData: ["before", "after", "replaceWith"],
  DocumentType: ["before", "after", "replaceWith"],
  Document: ["append", "prepend", "replaceChildren", "write", "writeln", "moveBefore"],
  DocumentFragment: ["append", "prepend", "replaceChildren", "moveBefore"],
  ShadowRoot: ["setHTMLUnsafe"],
  Range: ["insertNode", "surroundContents"],
};
const SETTERS: Record<string, string[]> = {
  Element: ["innerHTML", "outerHTML"],
  ShadowRoot: ["innerHTML"],
  HTMLIFrameElement: ["src", "srcdoc"],
  HTMLFrameElement: ["src"],
};
const FRAME_GETTERS: Record<string, string[]> = {
  HTMLIFrameElement: ["contentWindow", "contentDocument"],
  HTMLFrameElement: ["contentWindow", "contentDocument"],
  HTMLObjectElement: ["contentWindow", "contentDocument"],
  HTMLEmbedElement: ["getSVGDocument"],
};

function protoOf(w: AnyWindow, iface: string): Record<string, unknown> | null {
  const ctor = w[iface] as { prototype?: Record<string, unknown> } | undefined;
  return ctor?.prototype ?? null;
}

function hookFrames(w: AnyWindow): void {
  const after = () => sweep(w);
  for (const [iface, names] of Object.entries(INSERTERS)) {
    const proto = protoOf(w, iface);
    if (!proto) continue;
    for (const name of names) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      const orig = d?.value as ((...args: unknown[]) => unknown) | undefined;
      if (typeof orig !== "function") continue;
      define(proto, name, {
        enumerable: d?.enumerable ?? false,
        writable: false,
        value: {
          [name](this: unknown, ...args: unknown[]) {
            try {
              return orig.apply(this, args);
            } finally {
              after();
            }
          },
        }[name],
      });
    }
  }
  for (const [iface, names] of Object.entries(SETTERS)) {
    const proto = protoOf(w, iface);
    if (!proto) continue;
    for (const name of names) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (!d?.set || !d.get) continue;
      const { get, set } = d;
      define(proto, name, {
        enumerable: d.enumerable,
        get,
        set(this: unknown, v: unknown) {
          try {
            set.call(this, v);
          } finally {
            after();
          }
        },
      });
    }
  }
  for (const [iface, names] of Object.entries(FRAME_GETTERS)) {
    const proto = protoOf(w, iface);
    if (!proto) continue;
    for (const name of names) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (d?.get) {
        const get = d.get;
        define(proto, name, {
          enumerable: d.enumerable,
          get(this: unknown) {
            const v = get.call(this) as { defaultView?: Window | null } | Window | null;
            disarmValue(v);
            return v;
          },
        });
      } else if (typeof d?.value === "function") {
        const fn = d.value as (...args: unknown[]) => unknown;
        define(proto, name, {
          enumerable: d.enumerable ?? false,
          writable: false,
          value: function (this: unknown, ...args: unknown[]) {
            const v = fn.apply(this, args) as { defaultView?: Window | null } | null;
            disarmValue(v);
            return v;
          },
        });
      }
    }
  }
  // window.open("", name) hands back an existing frame by its name.
  const open = w.open;
  if (typeof open === "function") {
    define(w, "open", {
      writable: false,
      value: function (this: unknown, ...args: unknown[]) {
        const v = (open as (...a: unknown[]) => Window | null).apply(this, args);
        disarmValue(v);
        return v;
      },
    });
  }
  // Frames that finish loading a new document, and frames the parser or
  // anything unhooked inserted, before the unique's next task.
  w.addEventListener("load", after, true);
  try {
    const MO = w.MutationObserver as typeof MutationObserver;
    new MO(after).observe(w.document, { childList: true, subtree: true, attributes: true, attributeFilter: ["src", "srcdoc"] });
  } catch {
    // a document without an observer still has the hooks
  }
}

function disarmValue(v: unknown): void {
  if (!v || typeof v !== "object") return;
  try {
    const doc = v as { defaultView?: Window | null };
    if ("defaultView" in doc && doc.defaultView) {
      disarmWebRTC(doc.defaultView);
      return;
    }
    disarmWebRTC(v as Window);
  } catch {
    // a cross-origin window: out of the unique's reach
  }
}
