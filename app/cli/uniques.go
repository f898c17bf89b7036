package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/manifest"
	"github.com/lets-app/lets/backend/registry"
	"github.com/lets-app/lets/uniques"
)

// openRegistry opens the unique registry of the data folder directly: the
// install commands need no running host (a running host sees the change
// on its next look at the folder).
func openRegistry(env *Env) (*registry.Registry, config.Paths, error) {
	home, err := config.ResolveHome(env.Getenv)
	if err != nil {
		return nil, config.Paths{}, err
	}
	paths := config.Paths{Home: home}
	reg, err := registry.OpenRegistry(registry.RegistryOptions{
		Builtin:     uniques.FS(),
		UserDir:     paths.UniquesDir(),
		HostVersion: Version,
		Log:         slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		return nil, paths, err
	}
	return reg, paths, nil
}

// printInvalid lists a refused manifest's problems one per line.
func printInvalid(w io.Writer, verb string, ie *manifest.InvalidError) {
	where := ie.Where
	if where == "" {
		where = "the unique"
	}
	fmt.Fprintf(w, "Could not %s %s: its unique.json does not follow the rules.\n", verb, where)
	for _, p := range ie.Problems {
		fmt.Fprintf(w, "  - %s\n", p)
	}
	fmt.Fprintln(w, "Nothing was installed. The rules are in the LIP spec (seed §6); tell the unique's author, or fix it if it is yours.")
}

func runInstall(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("install")
	update := fs.Bool("update", false, "update an installed unique from where it came from: lets install --update <name>")
	if err := parseFlags(env, "install", fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		what := "say what to install: a git URL or a folder, optionally with #branch, #tag or #commit"
		if *update {
			what = "say which unique to update, e.g. `lets install --update graph`"
		}
		if fs.NArg() > 1 {
			what = fmt.Sprintf("unexpected argument %q (one unique at a time)", fs.Arg(1))
		}
		return &UsageError{Msg: what, flags: fs}
	}
	reg, _, err := openRegistry(env)
	if err != nil {
		return err
	}
	before := map[string]string{}
	for _, u := range reg.List() {
		before[u.Name()] = u.Manifest.Version
	}
	progress := func(msg string) { fmt.Fprintln(env.Stdout, msg) }

	var u *manifest.Unique
	if *update {
		u, err = reg.Update(ctx, fs.Arg(0), progress)
	} else {
		u, err = reg.Install(ctx, fs.Arg(0), progress)
	}
	var ie *manifest.InvalidError
	switch {
	case errors.As(err, &ie):
		printInvalid(env.Stderr, map[bool]string{true: "update", false: "install"}[*update], ie)
		return exitError{code: 1}
	case errors.Is(err, registry.ErrBuiltin):
		fmt.Fprintf(env.Stderr, "%s ships with Lets, so it is updated together with Lets itself.\n", fs.Arg(0))
		return exitError{code: 1}
	case errors.Is(err, registry.ErrUnknownUnique):
		fmt.Fprintf(env.Stderr, "No unique called %q is installed; `lets uniques` lists what is.\n", fs.Arg(0))
		return exitError{code: 1}
	case err != nil:
		return err
	}
	m := u.Manifest
	if old, ok := before[m.Name]; ok && old != m.Version {
		fmt.Fprintf(env.Stdout, "Updated %s from %s to %s.\n", m.Name, old, m.Version)
	}
	fmt.Fprintf(env.Stdout, "\n%s — %s\n", m.Name, m.Title)
	revision := "commit " + u.Commit()
	if u.Install != nil && u.Install.Folder {
		revision = "files sha256 " + u.Commit()
	}
	fmt.Fprintf(env.Stdout, "  version %s, %s\n  from    %s\n  folder  %s\n", m.Version, revision, u.Source(), u.Dir)
	fmt.Fprintf(env.Stdout, "Ask Claude to open %q, or run `lets uniques` to see everything installed.\n", m.Name)
	return nil
}

// uninstall removes the unique name the one way Lets has: through the
// running Lets when there is one (DELETE /lip/uniques/{name}: it also
// stops the unique's origin and forgets its port, so a later unique of the
// same name never inherits its browser storage), else with the same steps
// done here (host.Uninstall).
func uninstall(ctx context.Context, paths config.Paths, reg *registry.Registry, name string) error {
	if c, err := newHostClient(paths); err == nil {
		_, err := c.c.RemoveUnique(ctx, name)
		if err == nil || refusal(err) != nil {
			return cliHostError(err)
		}
		// host.json names a Lets that does not answer: do it here.
	}
	return host.Uninstall(paths, reg, name, nil)
}

func runUninstall(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("uninstall")
	if err := parseFlags(env, "uninstall", fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		msg := "say which unique to uninstall, e.g. `lets uninstall graph` (see `lets uniques`)"
		if fs.NArg() > 1 {
			msg = fmt.Sprintf("unexpected argument %q (one unique at a time)", fs.Arg(1))
		}
		return &UsageError{Msg: msg, flags: fs}
	}
	name := fs.Arg(0)
	reg, paths, err := openRegistry(env)
	if err != nil {
		return err
	}
	err = uninstall(ctx, paths, reg, name)
	ae := refusal(err)
	switch {
	case errors.Is(err, registry.ErrBuiltin), ae != nil && ae.Status == http.StatusForbidden:
		fmt.Fprintf(env.Stderr, "%s comes with Lets, so it cannot be uninstalled. It stays out of your way until someone opens it.\n", name)
		return exitError{code: 1}
	case errors.Is(err, registry.ErrUnknownUnique), ae != nil && ae.Status == http.StatusNotFound:
		fmt.Fprintf(env.Stderr, "No unique called %q is installed, so there is nothing to remove. `lets uniques` lists what is.\n", name)
		return exitError{code: 1}
	case err != nil:
		return err
	}
	fmt.Fprintf(env.Stdout, "Uninstalled %s.\n", name)
	saved := filepath.Join(paths.SessionsDir(), name)
	if entries, err := os.ReadDir(saved); err == nil && len(entries) > 0 {
		fmt.Fprintf(env.Stdout, "Its saved sessions are kept in %s; delete that folder if you no longer need them.\n", saved)
	}
	return nil
}

// uniqueListing is one row of `lets uniques --json`.
type uniqueListing struct {
	Name        string     `json:"name"`
	Title       string     `json:"title"`
	Version     string     `json:"version"`
	Description string     `json:"description,omitempty"`
	Source      string     `json:"source"`
	Builtin     bool       `json:"builtin"`
	Ref         string     `json:"ref,omitempty"`
	Commit      string     `json:"commit,omitempty"`
	InstalledAt *time.Time `json:"installedAt,omitempty"`
	Dir         string     `json:"dir,omitempty"`
	Domains     []string   `json:"domains"`
}

func runUniques(_ context.Context, env *Env, args []string) error {
	fs := newFlags("uniques")
	asJSON := fs.Bool("json", false, "print the list as JSON")
	if err := parseFlags(env, "uniques", fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	reg, paths, err := openRegistry(env)
	if err != nil {
		return err
	}
	list := reg.List()
	skipped := reg.Skipped()
	if *asJSON {
		rows := make([]uniqueListing, 0, len(list))
		for _, u := range list {
			row := uniqueListing{
				Name: u.Name(), Title: u.Manifest.Title, Version: u.Manifest.Version, Description: u.Manifest.Description,
				Source: u.Source(), Builtin: u.Builtin, Commit: u.Commit(), Dir: u.Dir, Domains: u.Manifest.Domains,
			}
			if u.Install != nil {
				row.Ref = u.Install.Ref
				at := u.Install.InstalledAt
				row.InstalledAt = &at
			}
			rows = append(rows, row)
		}
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tTITLE\tVERSION\tSOURCE")
		for _, u := range list {
			source := u.Source()
			if u.Install != nil {
				if u.Install.Ref != "" {
					source += "#" + u.Install.Ref
				}
				if c := u.Commit(); len(c) >= 12 {
					source += " @" + c[:12]
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", u.Name(), u.Manifest.Title, u.Manifest.Version, source)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "\nInstall more with `lets install <git url>[#ref]`; yours live in %s.\n", paths.UniquesDir())
	}
	for _, s := range skipped {
		fmt.Fprintf(env.Stderr, "Not loaded: %s — %v\n", s.Dir, s.Err)
	}
	return nil
}
