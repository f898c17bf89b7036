package geometry

import "testing"

// TestFitKeepsWindowsInTheWorkArea (#21 windows fit): the default
// 1024×768 on a 1024×600 screen whose top 40 px are a panel opens inside
// the work area, its title bar below the panel; a remembered place off the
// area moves into it; a window that fits keeps its size and place.
func TestFitKeepsWindowsInTheWorkArea(t *testing.T) {
	panel := Rect{X: 0, Y: 40, Width: 1024, Height: 560} // 1024×600, 40 px panel on top
	big := Rect{X: 0, Y: 0, Width: 2560, Height: 1400}
	for _, tc := range []struct {
		name   string
		r      Rect
		placed bool
		area   Rect
		want   Rect
	}{
		{"default size on a small screen", Rect{Width: 1024, Height: 768}, false, panel, Rect{X: 0, Y: 40, Width: 1008, Height: 512}},
		{"default size on a big screen is centred", Rect{Width: 1024, Height: 768}, false, big, Rect{X: 760, Y: 292, Width: 1024, Height: 768}},
		{"remembered place under the panel", Rect{X: 100, Y: 0, Width: 600, Height: 400}, true, panel, Rect{X: 100, Y: 40, Width: 600, Height: 400}},
		{"remembered place past the right edge", Rect{X: 900, Y: 100, Width: 600, Height: 400}, true, panel, Rect{X: 408, Y: 100, Width: 600, Height: 400}},
		{"remembered place that fits", Rect{X: 30, Y: 60, Width: 500, Height: 300}, true, panel, Rect{X: 30, Y: 60, Width: 500, Height: 300}},
		{"remembered size larger than the area", Rect{X: 0, Y: 0, Width: 1280, Height: 800}, true, panel, Rect{X: 0, Y: 40, Width: 1008, Height: 512}},
		{"second monitor to the right", Rect{X: 0, Y: 0, Width: 800, Height: 600}, true, Rect{X: 1920, Y: 0, Width: 1280, Height: 1024}, Rect{X: 1920, Y: 0, Width: 800, Height: 600}},
		{"unknown area leaves it be", Rect{X: 5, Y: 5, Width: 1024, Height: 768}, true, Rect{}, Rect{X: 5, Y: 5, Width: 1024, Height: 768}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Fit(tc.r, tc.placed, tc.area)
			if got != tc.want {
				t.Fatalf("Fit(%+v, %v, %+v) = %+v, want %+v", tc.r, tc.placed, tc.area, got, tc.want)
			}
			if tc.area.Width > 0 {
				if got.X < tc.area.X || got.Y < tc.area.Y || got.X+got.Width+FrameWidth > tc.area.X+tc.area.Width || got.Y+got.Height+FrameHeight > tc.area.Y+tc.area.Height {
					t.Fatalf("%+v (with its frame) is not inside the work area %+v", got, tc.area)
				}
			}
		})
	}
}
