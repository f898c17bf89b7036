package window

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/lets-app/lets/app/window/geometry"
)

// ReportFDEnv names the environment variable that tells the window process
// which file descriptor carries its reports (the app sets it to 3).
// Reports do not use stdout: GTK, WebKit and Wails print there.
const ReportFDEnv = "LETS_WINDOW_REPORT_FD"

// Report kinds.
const (
	// ReportGeometry carries the window's place and size, sent when the
	// window closes so the next window of the same unique opens there.
	ReportGeometry = "geometry"
	// ReportLoaded says a page finished loading in the window.
	ReportLoaded = "loaded"
)

// Report is one line the window process tells the app.
type Report struct {
	Type     string         `json:"type"`
	Geometry *geometry.Rect `json:"geometry,omitempty"`
}

// maxReportLine bounds one report line the app reads.
const maxReportLine = 4096

// reporter writes reports as JSON lines; safe for concurrent use.
type reporter struct {
	mu  sync.Mutex
	out io.Writer
}

func (r *reporter) send(rep Report) error {
	if r == nil || r.out == nil {
		return nil
	}
	b, err := json.Marshal(rep)
	if err != nil {
		return fmt.Errorf("encode a window report: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.out.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("tell Lets about the window: %w", err)
	}
	return nil
}

// ReadReports calls fn for every report line in r until r ends; lines that
// are not reports are skipped (a window process is not trusted to be
// well-formed, only to be ours).
func ReadReports(r io.Reader, fn func(Report)) error {
	dec := newLineReader(r)
	for {
		line, err := dec()
		if line != nil {
			var rep Report
			if json.Unmarshal(line, &rep) == nil && rep.Type != "" {
				fn(rep)
			}
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}
