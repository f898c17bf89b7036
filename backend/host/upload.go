package host

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/lip"
)

// Upload pruning (spec §9): the newest files of a unique are kept.
const (
	uploadKeepFiles = 500
	uploadKeepBytes = 1 << 30
)

// uploadResult is the answer of POST /lip/upload.
type uploadResult struct {
	Path  string `json:"path"`
	W     int    `json:"w"`
	H     int    `json:"h"`
	Mime  string `json:"mime"`
	Bytes int64  `json:"bytes"`
	// Event is the id of the media.image event the host emitted.
	Event string `json:"event"`
}

// handleUpload is POST /lip/upload (spec §8.2, §9): the body is the image.
// Its kind is found from its bytes; the client's Content-Type is not
// trusted. The file is written whole under uploads/<unique>/ or not at all,
// and the host emits media.image with its path.
func (s *Server) handleUpload(w http.ResponseWriter, r *http.Request, win *window) {
	max := s.opts.UploadMaxBytes
	if r.ContentLength > max {
		writeError(w, http.StatusRequestEntityTooLarge, string(lip.CodeTooLarge), fmt.Sprintf("an upload may be at most %d bytes", max))
		return
	}
	source := r.Header.Get("X-Lets-Source")
	switch source {
	case "paste", "drop", "file":
	case "":
		source = "file"
	default:
		writeError(w, http.StatusBadRequest, string(lip.CodeBadEnvelope), `X-Lets-Source must be "paste", "drop" or "file"`)
		return
	}
	componentID := r.Header.Get("X-Lets-Component")
	if componentID != "" && !lip.ValidID(componentID) {
		writeError(w, http.StatusBadRequest, string(lip.CodeBadEnvelope), "X-Lets-Component must be a component id")
		return
	}
	dir := filepath.Join(config.Paths{Home: s.opts.DataDir}.UploadsDir(), win.name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		writeError(w, http.StatusInternalServerError, string(lip.CodeInternal), "the uploads folder could not be made")
		return
	}
	tmp, err := os.CreateTemp(dir, ".upload-*.part")
	if err != nil {
		writeError(w, http.StatusInternalServerError, string(lip.CodeInternal), "the upload could not be stored")
		return
	}
	committed := false
	defer func() {
		if !committed {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	n, err := io.Copy(tmp, http.MaxBytesReader(w, r.Body, max))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, string(lip.CodeTooLarge), fmt.Sprintf("an upload may be at most %d bytes", max))
			return
		}
		writeError(w, http.StatusBadRequest, string(lip.CodeBadEnvelope), "the upload was cut off")
		return
	}
	if n == 0 {
		writeError(w, http.StatusBadRequest, string(lip.CodeBadEnvelope), "the upload is empty")
		return
	}
	head := make([]byte, min(n, 512))
	if _, err := tmp.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		writeError(w, http.StatusInternalServerError, string(lip.CodeInternal), "the upload could not be read back")
		return
	}
	kind, width, height, ok := sniffImage(head, io.NewSectionReader(tmp, 0, n))
	if !ok {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media", "only PNG, JPEG, GIF and WebP images can be uploaded (judged by the file's bytes)")
		return
	}
	if perr := checkImageSize(width, height); perr != nil {
		writeError(w, http.StatusRequestEntityTooLarge, string(perr.Code), perr.Message)
		return
	}
	if err := tmp.Chmod(0o600); err != nil {
		writeError(w, http.StatusInternalServerError, string(lip.CodeInternal), "the upload could not be stored")
		return
	}
	if err := tmp.Sync(); err != nil {
		writeError(w, http.StatusInternalServerError, string(lip.CodeInternal), "the upload could not be stored")
		return
	}
	if err := tmp.Close(); err != nil {
		writeError(w, http.StatusInternalServerError, string(lip.CodeInternal), "the upload could not be stored")
		return
	}
	now := s.opts.Now()
	id := s.core.ids.ULID(now).String()
	final := filepath.Join(dir, id+kind.Ext)
	if err := os.Rename(tmp.Name(), final); err != nil {
		writeError(w, http.StatusInternalServerError, string(lip.CodeInternal), "the upload could not be stored")
		return
	}
	committed = true
	pruneUploads(dir, final)

	kindSrc := lip.KindShell
	if r.Header.Get("X-Lets-Via") == "unique" {
		kindSrc = lip.KindUnique
	}
	ev := map[string]any{"path": final, "w": width, "h": height, "mime": kind.Mime, "bytes": n, "source": source}
	if componentID != "" {
		ev["componentId"] = componentID
	}
	e := &lip.Envelope{LIP: lip.Version, ID: s.core.ids.Event(now), Type: lip.TypeMediaImage, Data: dataObject(ev)}
	_ = lip.StampUp(e, lip.Source{Kind: kindSrc, Unique: win.name, Window: win.id}, now)
	s.core.ring.append(e, now)
	writeJSON(w, http.StatusOK, uploadResult{Path: final, W: width, H: height, Mime: kind.Mime, Bytes: n, Event: e.ID})
}

// pruneUploads keeps the newest uploadKeepFiles files and at most
// uploadKeepBytes in dir (never removing keep, the file just stored).
func pruneUploads(dir, keep string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type file struct {
		path string
		size int64
		mod  int64
	}
	var files []file
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		files = append(files, file{filepath.Join(dir, e.Name()), info.Size(), info.ModTime().UnixNano()})
	}
	// Names are ULIDs: they sort by time, which breaks ties in mod times.
	sort.Slice(files, func(i, j int) bool {
		if files[i].mod != files[j].mod {
			return files[i].mod > files[j].mod
		}
		return files[i].path > files[j].path
	})
	var total int64
	for i, f := range files {
		total += f.size
		if f.path != keep && (i >= uploadKeepFiles || total > uploadKeepBytes) {
			_ = os.Remove(f.path)
		}
	}
}
