package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// InstallRecord is ~/.lets/uniques/<name>/.lets-install.json.
type InstallRecord struct {
	// Source is the git URL or local path given to `lets install`.
	Source string `json:"source"`
	// Ref is the branch, tag or commit after '#', empty for the default.
	Ref string `json:"ref,omitempty"`
	// Commit is the installed git commit; for a copied plain folder, the
	// sha256 of its files (names, modes, contents).
	Commit string `json:"commit"`
	// Folder is true when Source is a plain folder that was copied (not a
	// git repository).
	Folder bool `json:"folder,omitempty"`
	// InstalledAt is when the folder was moved into place (UTC).
	InstalledAt time.Time `json:"installedAt"`
}

// InstallRecordFile is the name of the install record inside a user unique.
const InstallRecordFile = ".lets-install.json"

// Unique is one registered unique: its checked manifest and where its
// files are.
type Unique struct {
	Manifest *Manifest
	// Builtin is true for uniques embedded in the binary.
	Builtin bool
	// Dir is the folder of a user unique; empty for built-ins.
	Dir string
	// Install is the install record of a user unique (nil for built-ins,
	// and for a user folder put there by hand).
	Install *InstallRecord
	// Warnings found while checking (e.g. a long GUIDE.md).
	Warnings []string

	embedded fs.FS // built-ins only
}

// NewBuiltin makes the Unique of a built-in whose files are files (one
// folder of the embedded uniques).
func NewBuiltin(m *Manifest, warnings []string, files fs.FS) *Unique {
	return &Unique{Manifest: m, Builtin: true, Warnings: warnings, embedded: files}
}

// Name is the manifest name.
func (u *Unique) Name() string { return u.Manifest.Name }

// Source says where the unique came from: "built-in", the install source,
// or "local folder" for a hand-made user folder.
func (u *Unique) Source() string {
	switch {
	case u.Builtin:
		return "built-in"
	case u.Install != nil:
		return u.Install.Source
	}
	return "local folder"
}

// Commit is the installed commit, or "".
func (u *Unique) Commit() string {
	if u.Install == nil {
		return ""
	}
	return u.Install.Commit
}

// Open opens a file for serving on the unique's origin (origin U, LIP 1
// §1.6) by URL path, with the rules of ResolveFile (also refusing the
// manifest's own guide file). The returned file is regular and implements
// io.Seeker; errors match fs.ErrNotExist. The caller closes it.
func (u *Unique) Open(urlPath string) (fs.File, error) {
	hidden := []string{u.Manifest.GuidePath()}
	if u.Builtin {
		return openServedFS(u.embedded, urlPath, hidden)
	}
	f, err := openFile(u.Dir, urlPath, hidden)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// maxHostRead caps ReadFile.
const maxHostRead = 8 << 20

// ReadFile reads a file inside the unique for the host itself (it may read
// unique.json, the guide and dot-files, but never leaves the folder; links
// that lead outside count as missing). Files over 8 MiB are refused.
func (u *Unique) ReadFile(name string) ([]byte, error) {
	rel, err := hostName(name)
	if err != nil {
		return nil, err
	}
	if u.Builtin {
		return readLimited(u.embedded, rel, maxHostRead)
	}
	r, err := os.OpenRoot(u.Dir)
	if err != nil {
		return nil, fmt.Errorf("open unique folder of %s: %w", u.Name(), err)
	}
	defer r.Close()
	return readLimited(r.FS(), rel, maxHostRead)
}

// GuideText returns the guide's text (GUIDE.md or the manifest's guide),
// or "" when the unique has none.
func (u *Unique) GuideText() (string, error) {
	b, err := u.ReadFile(u.Manifest.GuidePath())
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the guide of %s: %w", u.Name(), err)
	}
	return string(b), nil
}
