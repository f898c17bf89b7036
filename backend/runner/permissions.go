// Package runner runs code a unique asks the host to run (LIP 1 §10): only
// languages the unique's manifest lists in permissions.exec, only after the
// human allowed it, in a private working folder, with a timeout, output caps
// and a minimal environment, never through a shell command line.
package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/atomicfile"
)

// Grant is one "Always" answer: the human allowed this unique, at this
// installed commit, to run these languages.
type Grant struct {
	Commit    string    `json:"commit"`
	Languages []string  `json:"languages"`
	AllowedAt time.Time `json:"allowedAt"`
}

// permissionsFile is the layout of ~/.lets/permissions.json.
type permissionsFile struct {
	Exec map[string]Grant `json:"exec"`
}

// Permissions is the store of "Always" answers, kept in permissions.json
// (mode 0600, written atomically). Grants are keyed by unique name and the
// installed commit, so an update of the unique asks again.
type Permissions struct {
	path string
	mu   sync.Mutex
}

// OpenPermissions uses the file at path (it need not exist yet).
func OpenPermissions(path string) *Permissions { return &Permissions{path: path} }

func (p *Permissions) load() (permissionsFile, error) {
	var f permissionsFile
	data, err := os.ReadFile(p.path)
	if errors.Is(err, fs.ErrNotExist) {
		return permissionsFile{Exec: map[string]Grant{}}, nil
	}
	if err != nil {
		return permissionsFile{Exec: map[string]Grant{}}, fmt.Errorf("read %s: %w", p.path, err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return permissionsFile{Exec: map[string]Grant{}}, fmt.Errorf("%s is damaged (%v); Lets will ask again and rewrite it", p.path, err)
	}
	if f.Exec == nil {
		f.Exec = map[string]Grant{}
	}
	return f, nil
}

// Allowed reports whether the human chose "Always" for this unique, commit
// and language. A damaged file allows nothing.
func (p *Permissions) Allowed(unique, commit, language string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := p.load()
	if err != nil {
		return false
	}
	g, ok := f.Exec[unique]
	if !ok || g.Commit != commit {
		return false
	}
	for _, l := range g.Languages {
		if l == language {
			return true
		}
	}
	return false
}

// Allow records an "Always" answer. A grant for another commit of the same
// unique is replaced.
func (p *Permissions) Allow(unique, commit, language string, now time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, _ := p.load() // a damaged file is replaced by a good one
	g := f.Exec[unique]
	if g.Commit != commit {
		g = Grant{Commit: commit}
	}
	found := false
	for _, l := range g.Languages {
		found = found || l == language
	}
	if !found {
		g.Languages = append(g.Languages, language)
		sort.Strings(g.Languages)
	}
	g.AllowedAt = now.UTC()
	f.Exec[unique] = g
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode permissions: %w", err)
	}
	if err := atomicfile.Write(p.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("remember the permission: %w", err)
	}
	return nil
}

// Revoke forgets every grant of a unique (e.g. when it is removed).
func (p *Permissions) Revoke(unique string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := p.load()
	if err != nil {
		return err
	}
	if _, ok := f.Exec[unique]; !ok {
		return nil
	}
	delete(f.Exec, unique)
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(p.path, append(data, '\n'), 0o600)
}
