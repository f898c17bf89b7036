package host

import (
	"net/http"

	"github.com/lets-app/lets/backend/hostapi"
)

// ShowHomeRoute is how a second `lets` asks the running one to show its
// home window (single instance). It needs the host token from host.json.
const ShowHomeRoute = "POST " + hostapi.PathShowHome

// handleShowHome asks the app to show its home window. A host without a
// home window (`lets serve`) says so and where the home page is, so the
// second `lets` can tell the person.
func (s *Server) handleShowHome(w http.ResponseWriter, r *http.Request) {
	if s.opts.OnShowHome == nil {
		writeError(w, http.StatusNotImplemented, string(hostapi.CodeNoHomeWindow),
			"this Lets runs headless (lets serve) and has no home window; open "+s.URL()+"/ in your browser instead")
		return
	}
	go s.opts.OnShowHome()
	writeJSON(w, http.StatusOK, hostapi.ShowHomeAnswer{Showing: "home"})
}
