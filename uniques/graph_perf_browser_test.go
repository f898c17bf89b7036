package uniques_test

import (
	"encoding/json"
	"fmt"
	"sort"
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

// BenchmarkBrowserGraphPanZoom loads 500 nodes and 1000 links and measures
// pan and zoom in headless Chromium (issue #14: 60 fps): the page moves the
// view on every animation frame for three seconds (pan only, then pan with
// zoom) and the requestAnimationFrame timestamps give the frame rate. The
// numbers are reported as metrics (pan-fps, panzoom-fps, the p95 frame
// times, load-ms, layout-ms); a benchmark, not a timed test, so a loaded
// machine changes the numbers, not the verdict.
func BenchmarkBrowserGraphPanZoom(b *testing.B) {
	p := newGraphPage(b, "light")
	data := bigGraph(500, 1000)
	if err := p.m.CheckCommandData("graph.load", []byte(data)); err != nil {
		b.Fatal(err)
	}
	type result struct {
		Frames int       `json:"frames"`
		Ms     float64   `json:"ms"`
		Deltas []float64 `json:"deltas"`
	}
	measure := func(step string) (fps, p95 float64) {
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
			b.Fatal("no animation frames")
		}
		sorted := append([]float64(nil), r.Deltas...)
		sort.Float64s(sorted)
		return float64(r.Frames) / (r.Ms / 1000), sorted[int(0.95*float64(len(sorted)-1))]
	}
	var loadMs, layoutMs, panFPS, panP95, zoomFPS, zoomP95 float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var ms float64
		p.eval(`(() => { const data = `+data+`; const t0 = performance.now(); window.__command("graph.load", data);
			document.getElementById("canvas").getBBox(); return performance.now() - t0; })()`, &ms)
		loadMs += ms
		var counts []int
		p.eval(`[graphDebug.graph.nodes.size, graphDebug.graph.edges.size, document.querySelectorAll("#nodes .node").length, document.querySelectorAll("#edges .edge").length]`, &counts)
		if len(counts) != 4 || counts[0] != 500 || counts[1] != 1000 || counts[2] != 500 || counts[3] != 1000 {
			b.Fatalf("loaded %v, want 500 nodes and 1000 links", counts)
		}
		p.eval(`(() => { const t0 = performance.now(); document.getElementById("direction").value = "down"; document.getElementById("layout").click(); return performance.now() - t0; })()`, &ms)
		layoutMs += ms
		f, q := measure(`graphDebug.setView({x: -200 + i * 6, y: -100 + Math.sin(i / 20) * 80, zoom: 0.5});`)
		panFPS, panP95 = panFPS+f, panP95+q
		f, q = measure(`graphDebug.setView({x: -200 + i * 4, y: -100, zoom: 0.35 + 0.3 * (1 + Math.sin(i / 15))});`)
		zoomFPS, zoomP95 = zoomFPS+f, zoomP95+q
	}
	n := float64(b.N)
	b.ReportMetric(loadMs/n, "load-ms")
	b.ReportMetric(layoutMs/n, "layout-ms")
	b.ReportMetric(panFPS/n, "pan-fps")
	b.ReportMetric(panP95/n, "pan-p95-ms")
	b.ReportMetric(zoomFPS/n, "panzoom-fps")
	b.ReportMetric(zoomP95/n, "panzoom-p95-ms")
}
