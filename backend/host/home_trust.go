package host

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/trust"
)

// TrustedRoute (home token) lists the folders whose own Claude settings
// the person trusted in a chat window (backend/trust): {"folders":
// [{"path", "trusted"}]}. DELETE on it with {"path"} revokes one: a chat
// started there afterwards runs without the folder's settings and asks
// again. Trusting happens only in a chat window, where the person sees
// the folder's question; this route cannot add one.
const TrustedRoute = "/home/api/trusted"

const trustUnavailable = "this Lets keeps no data folder, so it remembers no trusted folders"

func (s *Server) registerTrust(mux *http.ServeMux) {
	mux.Handle("GET "+TrustedRoute, s.requireHomeToken(s.handleTrustedList))
	mux.Handle("DELETE "+TrustedRoute, s.requireHomeToken(s.handleTrustedRevoke))
}

// trustStore is the data folder's list; nil without a data folder.
func (s *Server) trustStore() *trust.Store {
	if s.opts.DataDir == "" {
		return nil
	}
	return trust.New(trust.Options{File: trust.File(config.Paths{Home: s.opts.DataDir}), Logger: s.opts.Log})
}

// trustedFolder is one folder of TrustedRoute's answer.
type trustedFolder struct {
	Path    string    `json:"path"`
	Trusted time.Time `json:"trusted"`
}

func (s *Server) handleTrustedList(w http.ResponseWriter, r *http.Request) {
	st := s.trustStore()
	if st == nil {
		writeError(w, http.StatusNotImplemented, "no_trust", trustUnavailable)
		return
	}
	list, err := st.List()
	if err != nil {
		s.opts.Log.Warn("home: the trusted folders cannot be read", "err", err)
		writeError(w, http.StatusInternalServerError, "trust_unreadable", "the list of trusted folders could not be read: "+err.Error())
		return
	}
	out := make([]trustedFolder, 0, len(list))
	for _, f := range list {
		out = append(out, trustedFolder(f))
	}
	writeJSON(w, http.StatusOK, map[string]any{"folders": out})
}

func (s *Server) handleTrustedRevoke(w http.ResponseWriter, r *http.Request) {
	st := s.trustStore()
	if st == nil {
		writeError(w, http.StatusNotImplemented, "no_trust", trustUnavailable)
		return
	}
	b, ok := readBody(w, r, 8<<10)
	if !ok {
		return
	}
	var req struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(b, &req); err != nil || req.Path == "" {
		writeError(w, http.StatusBadRequest, string(lip.CodeBadEnvelope), `the body must be {"path": "<a trusted folder>"}`)
		return
	}
	removed, err := st.Revoke(req.Path)
	switch {
	case errors.Is(err, trust.ErrBadPath):
		writeError(w, http.StatusBadRequest, "bad_folder", "give the folder as a full path, starting with /")
	case err != nil:
		s.opts.Log.Warn("home: revoking a trusted folder failed", "err", err)
		writeError(w, http.StatusInternalServerError, "trust_unwritable", "the folder could not be taken off the list: "+err.Error())
	case !removed:
		writeError(w, http.StatusNotFound, "not_trusted", "that folder is not on the list of trusted folders (it may have been taken off already)")
	default:
		writeJSON(w, http.StatusOK, map[string]any{"revoked": req.Path})
	}
}
