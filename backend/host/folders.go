package host

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// FoldersRoute (home token) lists the folders inside one folder of the
// person's home, for the home page's "New chat in a folder…": the chat's
// Claude works in the folder chosen there. Query: path (absolute; none
// means the home folder). Answer: {"path", "parent" ("" at the home
// folder), "home", "folders": [{"name", "path"}], "more"}. Hidden folders
// are left out. Only folders inside the home folder can be listed: a path
// outside it, or a link that leads out of it, is 403 outside_home.
const FoldersRoute = "GET /home/api/folders"

// maxFolders bounds one listing; "more" says some were left out.
const maxFolders = 500

// folderEntry is one folder of a listing.
type folderEntry struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// folderList is FoldersRoute's answer.
type folderList struct {
	Path    string        `json:"path"`
	Parent  string        `json:"parent"`
	Home    string        `json:"home"`
	Folders []folderEntry `json:"folders"`
	More    bool          `json:"more"`
}

// Why a folder cannot be listed.
var (
	errFolderOutside = errors.New("only folders inside your home folder can be chosen here")
	errFolderMissing = errors.New("there is no such folder (it may have been moved or deleted)")
	errNotAFolder    = errors.New("that is a file, not a folder")
	errFolderPath    = errors.New("give the folder as a full path, starting with /")
)

// listFolders lists the folders in path, which must lie inside home (both
// with links resolved).
func listFolders(home, path string) (folderList, error) { return listFoldersChecked(home, path, nil) }

// listFoldersChecked is listFolders; afterCheck, when set, runs between
// the check that path lies inside home and the read (tests swap the folder
// for a link there). The read goes through an os.Root of the home folder,
// which follows no link out of it: a folder swapped for a link to /etc
// after the check is refused, not listed.
func listFoldersChecked(home, path string, afterCheck func()) (folderList, error) {
	realHome, err := filepath.EvalSymlinks(home)
	if err != nil || home == "" {
		return folderList{}, errFolderMissing
	}
	if path == "" {
		path = realHome
	}
	if !filepath.IsAbs(path) || len(path) > 4096 || strings.ContainsRune(path, 0) {
		return folderList{}, errFolderPath
	}
	real, err := filepath.EvalSymlinks(filepath.Clean(path))
	if errors.Is(err, fs.ErrNotExist) {
		return folderList{}, errFolderMissing
	}
	if err != nil {
		return folderList{}, err
	}
	if !inside(realHome, real) {
		return folderList{}, errFolderOutside
	}
	if afterCheck != nil {
		afterCheck()
	}
	entries, err := readDirBeneath(realHome, real)
	if err != nil {
		return folderList{}, err
	}
	out := folderList{Path: real, Home: realHome, Folders: []folderEntry{}}
	if real != realHome {
		out.Parent = filepath.Dir(real)
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(real, name)
		if e.Type()&fs.ModeSymlink != 0 {
			// A link is offered only when it leads to a folder that is
			// still inside the home folder.
			target, err := filepath.EvalSymlinks(p)
			if err != nil || !inside(realHome, target) {
				continue
			}
			if fi, err := os.Stat(target); err != nil || !fi.IsDir() {
				continue
			}
		} else if !e.IsDir() {
			continue
		}
		if len(out.Folders) == maxFolders {
			out.More = true
			break
		}
		out.Folders = append(out.Folders, folderEntry{Name: name, Path: p})
	}
	sort.SliceStable(out.Folders, func(i, j int) bool {
		return strings.ToLower(out.Folders[i].Name) < strings.ToLower(out.Folders[j].Name)
	})
	return out, nil
}

// readDirBeneath reads the folder dir, which lies inside home, without
// following any link out of home on the way (os.Root).
func readDirBeneath(home, dir string) ([]fs.DirEntry, error) {
	rel, err := filepath.Rel(home, dir)
	if err != nil {
		return nil, errFolderOutside
	}
	root, err := os.OpenRoot(home)
	if err != nil {
		return nil, errFolderMissing
	}
	defer root.Close()
	f, err := root.Open(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, errFolderMissing
	case errors.Is(err, fs.ErrPermission):
		return nil, err
	case err != nil:
		// A link that leads out of home (swapped in after the check).
		return nil, errFolderOutside
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, errFolderMissing
	}
	if !fi.IsDir() {
		return nil, errNotAFolder
	}
	return f.ReadDir(-1)
}

// inside says whether p is dir or lies below it (both cleaned, absolute).
func inside(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func (s *Server) handleFolders(w http.ResponseWriter, r *http.Request) {
	list, err := listFolders(s.opts.Getenv("HOME"), r.URL.Query().Get("path"))
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, list)
	case errors.Is(err, errFolderOutside):
		writeError(w, http.StatusForbidden, "outside_home", err.Error())
	case errors.Is(err, errFolderMissing):
		writeError(w, http.StatusNotFound, "no_folder", err.Error())
	case errors.Is(err, errNotAFolder), errors.Is(err, errFolderPath):
		writeError(w, http.StatusBadRequest, "bad_folder", err.Error())
	default:
		writeError(w, http.StatusInternalServerError, "folder_unreadable", "the folder could not be read: "+err.Error())
	}
}
