package uniques_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// bigGraph is a deterministic graph of n nodes on a grid and m links
// (each node to its right and lower neighbours, then longer jumps).
func bigGraph(n, m int) string {
	type node struct {
		ID    string         `json:"id"`
		Label string         `json:"label"`
		At    map[string]int `json:"at"`
		Shape string         `json:"shape,omitempty"`
		Color string         `json:"color,omitempty"`
	}
	type edge struct {
		From  string `json:"from"`
		To    string `json:"to"`
		Label string `json:"label,omitempty"`
	}
	shapes := []string{"box", "round", "ellipse", "diamond", "note"}
	colors := []string{"", "blue", "green", "yellow", "orange", "red", "purple", "pink", "gray"}
	const cols = 25
	nodes := make([]node, n)
	for i := range nodes {
		nodes[i] = node{
			ID: fmt.Sprintf("p%d", i), Label: fmt.Sprintf("Step %d of the plan", i),
			At:    map[string]int{"x": (i % cols) * 220, "y": (i / cols) * 120},
			Shape: shapes[i%len(shapes)], Color: colors[i%len(colors)],
		}
	}
	var edges []edge
	seen := map[[2]int]bool{}
	add := func(a, b int) {
		if len(edges) >= m || b >= n || a == b || seen[[2]int{a, b}] {
			return
		}
		seen[[2]int{a, b}] = true
		e := edge{From: nodes[a].ID, To: nodes[b].ID}
		if len(edges)%7 == 0 {
			e.Label = "then"
		}
		edges = append(edges, e)
	}
	for i := 0; i < n; i++ {
		if i%cols != cols-1 {
			add(i, i+1)
		}
		add(i, i+cols)
	}
	for k := 2; len(edges) < m && k < n; k++ {
		for i := 0; i+k*7 < n && len(edges) < m; i += 3 {
			add(i, i+k*7)
		}
	}
	data, _ := json.Marshal(map[string]any{"nodes": nodes, "edges": edges})
	return string(data)
}

// TestBrowserGraphPerformance loads 500 nodes and 1000 links and measures
// pan and zoom in headless Chromium: the page moves the view on every
// animation frame for three seconds (pan only, then pan with zoom) and the
// requestAnimationFrame timestamps give the frame rate. The target
// is 60 fps; the numbers are logged, and the test fails below 30 fps.
func TestBrowserGraphPerformance(t *testing.T) {
	p := newGraphPage(t, "light")
	data := bigGraph(500, 1000)
	if err := p.m.CheckCommandData("graph.load", []byte(data)); err != nil {
		t.Fatal(err)
	}
	var loadMs float64
	p.eval(`(() => { const data = `+data+`; const t0 = performance.now(); window.__command("graph.load", data);
		document.getElementById("canvas").getBBox(); return performance.now() - t0; })()`, &loadMs)
	var counts []int
	p.eval(`[graphDebug.graph.nodes.size, graphDebug.graph.edges.size, document.querySelectorAll("#nodes .node").length, document.querySelectorAll("#edges .edge").length]`, &counts)
	if len(counts) != 4 || counts[0] != 500 || counts[1] != 1000 || counts[2] != 500 || counts[3] != 1000 {
		t.Fatalf("loaded %v, want 500 nodes and 1000 links", counts)
	}
	t.Logf("graph.load of 500 nodes / 1000 links (script, DOM and layout): %.0f ms", loadMs)

	var layoutMs float64
	p.eval(`(() => { const t0 = performance.now(); document.getElementById("direction").value = "down"; document.getElementById("layout").click(); return performance.now() - t0; })()`, &layoutMs)
	t.Logf("layered layout of 500 nodes / 1000 links (animation skipped above 300 nodes): %.0f ms", layoutMs)

	type result struct {
		Frames int       `json:"frames"`
		Ms     float64   `json:"ms"`
		Deltas []float64 `json:"deltas"`
	}
	measure := func(name, step string) {
		t.Helper()
		var r result
		expr := `new Promise((resolve) => {
			graphDebug.setView({x: -200, y: -100, zoom: 0.5});
			const deltas = []; let last = 0, start = 0, i = 0;
			const frame = (now) => {
				if (!start) start = now; else deltas.push(now - last);
				last = now; i++;
				` + step + `
				if (now - start < 3000) requestAnimationFrame(frame);
				else resolve({frames: deltas.length, ms: now - start, deltas});
			};
			requestAnimationFrame(frame);
		})`
		p.run(chromedp.Evaluate(expr, &r, awaitPromise))
		if r.Frames == 0 {
			t.Fatalf("%s: no frames", name)
		}
		sorted := append([]float64(nil), r.Deltas...)
		for i := 1; i < len(sorted); i++ {
			for j := i; j > 0 && sorted[j] < sorted[j-1]; j-- {
				sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
			}
		}
		pct := func(q float64) float64 { return sorted[int(q*float64(len(sorted)-1))] }
		fps := float64(r.Frames) / (r.Ms / 1000)
		slow := 0
		for _, d := range r.Deltas {
			if d > 20 {
				slow++
			}
		}
		t.Logf("%s, 500 nodes / 1000 links: %.1f fps over %.1f s (%d frames); frame time p50 %.1f ms, p95 %.1f ms, max %.1f ms; %d frames over 20 ms",
			name, fps, r.Ms/1000, r.Frames, pct(0.5), pct(0.95), sorted[len(sorted)-1], slow)
		if fps < 30 {
			t.Errorf("%s: %.1f fps is below 30", name, fps)
		}
	}
	measure("pan", `graphDebug.setView({x: -200 + i * 6, y: -100 + Math.sin(i / 20) * 80, zoom: 0.5});`)
	measure("pan and zoom", `graphDebug.setView({x: -200 + i * 4, y: -100, zoom: 0.35 + 0.3 * (1 + Math.sin(i / 15))});`)
}
