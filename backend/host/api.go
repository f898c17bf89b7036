package host

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/manifest"
	"github.com/lets-app/lets/backend/registry"
	"github.com/lets-app/lets/backend/ring"
	"github.com/lets-app/lets/backend/sessions"
)

// maxAPIBody bounds privileged request bodies (a full batch plus slack).
const maxAPIBody = lip.MaxBatchBytes + 64<<10

// readBody reads a bounded request body; false means an answer was written.
func readBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, bool) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, string(lip.CodeTooLarge), "the request body is too large")
			return nil, false
		}
		writeError(w, http.StatusBadRequest, string(lip.CodeBadEnvelope), "the request body could not be read")
		return nil, false
	}
	return b, true
}

func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	b, ok := readBody(w, r, 64<<10)
	if !ok {
		return false
	}
	if err := json.Unmarshal(b, v); err != nil {
		writeError(w, http.StatusBadRequest, string(lip.CodeBadEnvelope), "the body must be a JSON object: "+err.Error())
		return false
	}
	return true
}

func (s *Server) handleUniques(w http.ResponseWriter, r *http.Request) {
	reg := s.core.registry
	if err := reg.Reload(); err != nil {
		s.opts.Log.Warn("rescanning the uniques folder failed", "err", err)
	}
	list := reg.List()
	out := make([]hostapi.Unique, 0, len(list))
	for _, u := range list {
		sum := summarize(u)
		out = append(out, hostapi.Unique{
			Name: sum.Name, Version: sum.Version, Title: sum.Title, Description: sum.Description,
			Domains: sum.Domains, Source: sum.Source, Commit: sum.Commit, Builtin: sum.Builtin,
			Events: summaries(u.Manifest.Events), Commands: summaries(u.Manifest.Commands),
			Exec: u.Manifest.Permissions.Exec, Warnings: u.Warnings,
		})
	}
	writeJSON(w, http.StatusOK, hostapi.UniqueList{Uniques: out})
}

func (s *Server) handleInstall(w http.ResponseWriter, r *http.Request) {
	var req hostapi.InstallRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if req.Source == "" {
		writeError(w, http.StatusBadRequest, string(lip.CodeBadEnvelope), `give "source": a git URL or a local path`)
		return
	}
	src := req.Source
	if req.Ref != "" {
		src += "#" + req.Ref
	}
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Minute)
	defer cancel()
	u, err := s.core.registry.Install(ctx, src, nil)
	if err != nil {
		writeManifestError(w, err)
		return
	}
	s.changes.Notify()
	writeJSON(w, http.StatusOK, hostapi.Installed{Name: u.Name(), Version: u.Manifest.Version, Commit: u.Commit(), Warnings: u.Warnings})
}

func (s *Server) handleRemove(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if err := s.core.registry.Remove(name); err != nil {
		writeManifestError(w, err)
		return
	}
	if err := s.perms.Revoke(name); err != nil {
		s.opts.Log.Warn("could not forget the removed unique's permissions", "unique", name, "err", err)
	}
	if s.origins != nil {
		s.origins.forget(name)
	}
	s.changes.Notify()
	writeJSON(w, http.StatusOK, hostapi.Removed{Removed: name})
}

func writeManifestError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, registry.ErrUnknownUnique):
		writeError(w, http.StatusNotFound, string(lip.CodeUnknownUnique), err.Error())
	case errors.Is(err, registry.ErrBuiltin):
		writeError(w, http.StatusForbidden, string(lip.CodeForbidden), err.Error())
	case errors.Is(err, manifest.ErrInvalid):
		writeError(w, http.StatusBadRequest, string(lip.CodeInvalidManifest), err.Error())
	default:
		writeError(w, http.StatusBadRequest, string(lip.CodeInstallFailed), err.Error())
	}
}

// writeFailure answers a failed request: a LIP error as itself, anything
// else with status and code.
func writeFailure(w http.ResponseWriter, err error, status int, code lip.Code) {
	var le *lip.Error
	if errors.As(err, &le) {
		writeLIPError(w, le)
		return
	}
	writeError(w, status, string(code), err.Error())
}

func (s *Server) handleOpen(w http.ResponseWriter, r *http.Request) {
	var req hostapi.OpenRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if req.Unique == "" {
		writeHinted(w, http.StatusBadRequest, string(lip.CodeBadEnvelope), `give "unique": the name of an installed unique`, hostapi.HintUniques)
		return
	}
	res, win, err := s.core.open(req, claudePIDOf(r.Header), s.origins, s.URL())
	if err != nil {
		var le *lip.Error
		switch {
		case errors.As(err, &le):
			writeLIPError(w, le)
		case errors.Is(err, registry.ErrUnknownUnique):
			writeError(w, http.StatusNotFound, string(lip.CodeUnknownUnique), err.Error())
		case errors.Is(err, errUnknownSession):
			writeError(w, http.StatusNotFound, string(hostapi.CodeUnknownSession), err.Error())
		default:
			writeError(w, http.StatusInternalServerError, string(lip.CodeInternal), err.Error())
		}
		return
	}
	// The one-time URL goes to OnOpen (a native window, or the browser the
	// app starts) or waits for the person's home page; a caller with the
	// host token never gets it (waiting.go).
	s.launch(&res, win, s.isPerson(r))
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) handleSend(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r, maxAPIBody)
	if !ok {
		return
	}
	src := lip.Source{Kind: lip.KindClaude}
	if r.Header.Get(hostapi.HeaderFrom) == hostapi.FromHook {
		src.Kind = lip.KindHook
	}
	accepted, rejected, whole := s.core.send(body, src)
	if whole != nil {
		writeLIPError(w, whole)
		return
	}
	writeJSON(w, http.StatusOK, hostapi.SendResult{Accepted: accepted, Rejected: rejected})
}

func (s *Server) handleListen(w http.ResponseWriter, r *http.Request) {
	var q ring.Query
	var err error
	if r.Method == http.MethodPost {
		body, ok := readBody(w, r, 64<<10)
		if !ok {
			return
		}
		q, err = ring.ParseListenJSON(body)
	} else {
		q, err = ring.ParseListenQuery(r.URL.Query())
	}
	if err != nil {
		writeFailure(w, err, http.StatusBadRequest, lip.CodeBadEnvelope)
		return
	}
	res, err := s.core.ring.listen(r.Context(), q)
	if err != nil {
		if errors.Is(err, ring.ErrClosed) {
			writeError(w, http.StatusServiceUnavailable, string(lip.CodeInternal), err.Error())
			return
		}
		if r.Context().Err() != nil {
			return // the client went away
		}
		writeError(w, http.StatusInternalServerError, string(lip.CodeInternal), err.Error())
		return
	}
	if res.Events == nil {
		res.Events = []lip.Envelope{}
	}
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) handleClose(w http.ResponseWriter, r *http.Request) {
	var req hostapi.WindowRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if err := s.core.closeWindow(req.Window, "claude"); err != nil {
		writeFailure(w, err, http.StatusInternalServerError, lip.CodeInternal)
		return
	}
	if s.opts.OnWindowClosing != nil {
		s.opts.OnWindowClosing(req.Window)
	}
	writeJSON(w, http.StatusOK, hostapi.Closed{OK: true, Window: req.Window})
}

func (s *Server) handleSessions(w http.ResponseWriter, r *http.Request) {
	list, err := s.core.sessions.List(r.URL.Query().Get("unique"))
	if err != nil && !errors.Is(err, sessions.ErrNotFound) {
		writeError(w, http.StatusInternalServerError, string(lip.CodeInternal), err.Error())
		return
	}
	if list == nil {
		list = []sessions.Info{}
	}
	writeJSON(w, http.StatusOK, hostapi.SessionList{Sessions: list})
}

func (s *Server) handleWindows(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, hostapi.WindowList{Windows: s.core.listWindows()})
}
