// The companion's look: an original character drawn here in SVG (a round
// sprout-headed creature, about 64 px) whose face is redrawn per mood from
// the mood table in logic.ts. DOM only; no behaviour.

import type { MoodLook } from "./logic";

const NS = "http://www.w3.org/2000/svg";

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, cls?: string): SVGElementTagNameMap[K] {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (cls) el.setAttribute("class", cls);
  return el;
}

export interface Figure {
  root: SVGSVGElement;
  /** Redraws the face and colour for a mood. */
  setLook(look: MoodLook): void;
}

/** Builds the character. The outer groups carry the reaction and mood motions. */
export function makeFigure(): Figure {
  const root = svg("svg", { viewBox: "0 0 64 64", width: 64, height: 64, "aria-hidden": "true", focusable: "false" }, "lets-c-svg");
  const shadow = svg("ellipse", { cx: 32, cy: 60, rx: 17, ry: 3 }, "lets-c-shadow");
  const react = svg("g", {}, "lets-c-react");
  const mood = svg("g", {}, "lets-c-mood");
  // The sprout on its head.
  const stem = svg("path", { d: "M32 14 Q31 9 33 5", fill: "none", "stroke-width": 2, "stroke-linecap": "round" }, "lets-c-stem");
  const leaf = svg("path", { d: "M33 6 Q39 1 44 5 Q39 10 33 6 Z" }, "lets-c-leaf");
  const feet = svg("g", {}, "lets-c-feet");
  feet.append(svg("ellipse", { cx: 24, cy: 56, rx: 6, ry: 3.5 }), svg("ellipse", { cx: 40, cy: 56, rx: 6, ry: 3.5 }));
  const body = svg("path", { d: "M32 13 C47 13 55 26 55 38 C55 50 45 57 32 57 C19 57 9 50 9 38 C9 26 17 13 32 13 Z" }, "lets-c-body");
  const belly = svg("ellipse", { cx: 32, cy: 46, rx: 13, ry: 8 }, "lets-c-belly");
  const shine = svg("ellipse", { cx: 22, cy: 23, rx: 5, ry: 3, transform: "rotate(-30 22 23)" }, "lets-c-shine");
  const cheeks = svg("g", {}, "lets-c-cheeks");
  cheeks.append(svg("ellipse", { cx: 18, cy: 38, rx: 4, ry: 2.5 }), svg("ellipse", { cx: 46, cy: 38, rx: 4, ry: 2.5 }));
  const eyes = svg("g", {}, "lets-c-eyes");
  const brows = svg("path", { d: "", fill: "none", "stroke-width": 2, "stroke-linecap": "round" }, "lets-c-brows");
  const mouth = svg("path", { d: "", "stroke-width": 2, "stroke-linecap": "round", "stroke-linejoin": "round" }, "lets-c-mouth");
  const sign = svg("text", { x: 50, y: 14, "text-anchor": "middle" }, "lets-c-sign");
  // Effects some reactions show (sparkles, disco lights, a sweat drop).
  const fx = svg("g", {}, "lets-c-fx");
  for (const [x, y] of [[8, 10], [56, 22], [12, 46]]) fx.append(svg("path", { d: `M${x} ${y - 4} L${x + 1} ${y - 1} L${x + 4} ${y} L${x + 1} ${y + 1} L${x} ${y + 4} L${x - 1} ${y + 1} L${x - 4} ${y} L${x - 1} ${y - 1} Z` }, "lets-c-star"));
  fx.append(svg("path", { d: "M50 26 Q53 31 50 33 Q47 31 50 26 Z" }, "lets-c-drop"));
  mood.append(stem, leaf, feet, body, belly, shine, cheeks, eyes, brows, mouth, sign);
  react.append(mood, fx);
  root.append(shadow, react);

  function drawEyes(kind: MoodLook["eyes"]): void {
    eyes.replaceChildren();
    for (const [side, cx] of [["l", 25], ["r", 39]] as const) {
      const g = svg("g", {}, `lets-c-eye lets-c-eye-${side}`);
      switch (kind) {
        case "round":
          g.append(svg("ellipse", { cx, cy: 31, rx: 3, ry: 3.6 }), svg("circle", { cx: cx + 1, cy: 29.8, r: 1 }, "lets-c-glint"));
          break;
        case "wide":
          g.append(svg("circle", { cx, cy: 31, r: 5 }, "lets-c-white"), svg("circle", { cx, cy: 31, r: 3 }), svg("circle", { cx: cx + 1.2, cy: 29.6, r: 1.1 }, "lets-c-glint"));
          break;
        case "arcs":
          g.append(svg("path", { d: `M${cx - 4} 32 Q${cx} 26 ${cx + 4} 32`, fill: "none", "stroke-width": 2.4, "stroke-linecap": "round" }, "lets-c-line"));
          break;
        case "closed":
          g.append(svg("path", { d: `M${cx - 4} 32 Q${cx} 35 ${cx + 4} 32`, fill: "none", "stroke-width": 2.2, "stroke-linecap": "round" }, "lets-c-line"));
          break;
        case "squint":
          g.append(svg("path", { d: `M${cx - 4} 31 L${cx + 4} 31`, fill: "none", "stroke-width": 2.6, "stroke-linecap": "round" }, "lets-c-line"), svg("circle", { cx, cy: 32, r: 1.6 }));
          break;
        case "up":
          g.append(svg("ellipse", { cx, cy: 31, rx: 3.2, ry: 3.8 }, "lets-c-white"), svg("circle", { cx: cx + 1.4, cy: 28.6, r: 2 }));
          break;
      }
      eyes.append(g);
    }
  }

  return {
    root,
    setLook(look: MoodLook): void {
      body.setAttribute("fill", look.body);
      drawEyes(look.eyes);
      brows.setAttribute("d", look.brows);
      mouth.setAttribute("d", look.mouth);
      mouth.setAttribute("fill", look.mouth.endsWith("Z") ? "currentColor" : "none");
      sign.textContent = look.sign;
    },
  };
}
