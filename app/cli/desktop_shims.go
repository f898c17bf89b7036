package cli

import (
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/hostclient"
	"github.com/lets-app/lets/backend/sessions"
	"github.com/lets-app/lets/backend/textsafe"
)

// Names the running process's wiring (desktop.go) still uses while it is
// being moved out of app/cli. They are the hostapi/hostclient types
// themselves, not copies; delete this file once desktop.go calls the typed
// hostclient methods.
type (
	apiError   = hostclient.APIError
	openAnswer = hostapi.OpenAnswer
	windowRow  = hostapi.Window
	sessionRow = sessions.Info
)

// oneLineSummary is textsafe.OneLine.
func oneLineSummary(s string, max int) string { return textsafe.OneLine(s, max) }
