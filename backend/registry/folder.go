package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// isGitRepository reports whether dir is a git work tree (it has .git) or
// a bare repository (HEAD, objects/ and refs/ at its top).
func isGitRepository(dir string) bool {
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
		return true
	}
	for _, p := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			return false
		}
	}
	return true
}

// copyFolder copies a unique from a plain folder (not a git repository)
// into work, with the limits of a git install: the folder is measured
// first and refused before anything is written when it has more than
// maxInstallEntries entries or more than max bytes of files; links must
// stay inside the folder (relative, without ".."); devices, sockets and
// pipes are refused. It returns a sha256 of the copied names, modes and
// contents, which stands in for the commit (so an "always allow" given to
// one copy does not carry over to changed files).
func copyFolder(ctx context.Context, src, work string, max int64) (string, error) {
	root, err := os.OpenRoot(src)
	if err != nil {
		return "", fmt.Errorf("%w: open %s: %v", ErrInstallFailed, src, err)
	}
	defer root.Close()
	if err := measureFolder(ctx, root.FS(), src, max); err != nil {
		return "", err
	}
	if err := os.Mkdir(work, 0o700); err != nil {
		return "", fmt.Errorf("%w: make the work folder: %v", ErrInstallFailed, err)
	}
	h := sha256.New()
	budget := max
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w: the copy took too long and was stopped (%v)", ErrInstallFailed, err)
		}
		if p == "." {
			return nil
		}
		dst := filepath.Join(work, filepath.FromSlash(p))
		switch t := d.Type(); {
		case t.IsDir():
			fmt.Fprintf(h, "d %s\x00", p)
			return os.Mkdir(dst, 0o755)
		case t&fs.ModeSymlink != 0:
			target, err := root.Readlink(p)
			if err != nil {
				return err
			}
			if msg := linkProblem(target); msg != "" {
				return fmt.Errorf("%w: %s %s", ErrInstallFailed, p, msg)
			}
			fmt.Fprintf(h, "l %s\x00%s\x00", p, target)
			return os.Symlink(target, dst)
		case t.IsRegular():
			n, err := copyFile(root, p, dst, budget, h)
			budget -= n
			return err
		default:
			return fmt.Errorf("%w: %s is not a file, folder or link (a device, socket or pipe cannot be part of a unique)", ErrInstallFailed, p)
		}
	})
	if err != nil {
		if errors.Is(err, ErrInstallFailed) {
			return "", err
		}
		return "", fmt.Errorf("%w: copy %s: %v", ErrInstallFailed, src, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// measureFolder walks the folder without writing anything and refuses it
// at the first entry past a limit.
func measureFolder(ctx context.Context, fsys fs.FS, src string, max int64) error {
	var total int64
	entries := 0
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w: measuring the folder took too long and was stopped (%v)", ErrInstallFailed, err)
		}
		if p == "." {
			return nil
		}
		entries++
		if entries > maxInstallEntries {
			return fmt.Errorf("%w: %s has more than %d files and folders (nothing was copied)", ErrInstallFailed, src, maxInstallEntries)
		}
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			total += fi.Size()
			if total > max {
				return fmt.Errorf("%w: the unique is larger than %s (reached at %s; nothing was copied)", ErrInstallFailed, mib(max), p)
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, ErrInstallFailed) {
		return fmt.Errorf("%w: look at %s: %v", ErrInstallFailed, src, err)
	}
	return err
}

// linkProblem says why a link target is refused, or "".
func linkProblem(target string) string {
	switch {
	case target == "" || filepath.IsAbs(target) || strings.HasPrefix(target, "/"):
		return "is a link to " + strconv.Quote(target) + "; a unique's links must be relative and stay inside its folder"
	case hasDotDot(target):
		return "is a link to " + strconv.Quote(target) + ", which uses \"..\"; a unique's links must stay inside its folder"
	}
	return ""
}

func hasDotDot(target string) bool {
	for _, part := range strings.Split(filepath.ToSlash(target), "/") {
		if part == ".." {
			return true
		}
	}
	return false
}

// copyFile copies one regular file through the root (so a component
// swapped for a link meanwhile cannot lead outside), writing at most
// budget bytes. It returns the bytes written.
func copyFile(root *os.Root, p, dst string, budget int64, h io.Writer) (int64, error) {
	in, err := root.Open(p)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("%w: %s changed while it was being copied; try again", ErrInstallFailed, p)
	}
	mode := os.FileMode(0o644)
	if fi.Mode().Perm()&0o111 != 0 {
		mode = 0o755
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(h, "f %s\x00%o\x00%d\x00", path.Clean(p), mode, fi.Size())
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(in, budget+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, err
	}
	if n > budget {
		return n, fmt.Errorf("%w: the unique grew past the size limit while it was being copied (at %s)", ErrInstallFailed, p)
	}
	return n, nil
}
