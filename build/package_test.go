package build_test

import (
	"bytes"
	"debug/elf"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/build/internal/iconart"
)

// run runs a command with a deadline and fails the test with its output.
func run(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	timer := time.AfterFunc(5*time.Minute, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// Point (issue 12, packaging): `make package`'s recipe builds a .deb that,
// unpacked into a scratch root with dpkg -x, puts the binary in /usr/bin,
// the desktop entry in /usr/share/applications and every icon size in the
// hicolor theme, declares the runtime libraries, and passes
// desktop-file-validate. The `lets` front and lets-core beside it are built
// here as `make package` builds them (lets-window, the GUI-tag build, is
// left out to stay fast: the recipe installs it the same way when present);
// the installed front hands `lets version` to the installed lets-core.
func TestPackageInstallsWhereADesktopLooks(t *testing.T) {
	testutil.Command(t, "dpkg-deb")
	validate := testutil.Command(t, "desktop-file-validate")
	goBin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	work := t.TempDir()
	bin := filepath.Join(work, "lets")
	run(t, nil, goBin, "build", "-ldflags", "-X github.com/lets-app/lets/app/cli.Version=9.8.7", "-o", filepath.Join(work, "lets-core"), "..")
	run(t, []string{"CGO_ENABLED=0"}, goBin, "build", "-o", bin, "../app/front/lets")
	deb := filepath.Join(work, "out", "lets_9.8.7.deb")
	run(t, []string{"DEB_COMPRESSION=none"}, "sh", filepath.Join("linux", "package.sh"), bin, "9.8.7", deb)

	fields := map[string]string{}
	for _, f := range []string{"Package", "Version", "Architecture", "Depends", "Description"} {
		fields[f] = strings.TrimSpace(run(t, nil, "dpkg-deb", "-f", deb, f))
	}
	if fields["Package"] != "lets" || fields["Version"] != "9.8.7" || fields["Architecture"] == "" || fields["Description"] == "" {
		t.Errorf("control fields %v", fields)
	}
	depends := map[string]bool{}
	for _, alt := range strings.Split(fields["Depends"], ",") {
		for _, p := range strings.Split(alt, "|") {
			depends[strings.TrimSpace(p)] = true
		}
	}
	// xdg-utils: Lets opens pages in the browser with xdg-open (#21).
	for _, p := range []string{"libgtk-3-0", "libwebkit2gtk-4.1-0", "libasound2", "git", "xdg-utils"} {
		if !depends[p] {
			t.Errorf("Depends %q lacks %s", fields["Depends"], p)
		}
	}

	root := filepath.Join(work, "root")
	run(t, nil, "dpkg", "-x", deb, root)

	lets := filepath.Join(root, "usr", "bin", "lets")
	fi, err := os.Stat(lets)
	if err != nil {
		t.Fatalf("the package has no /usr/bin/lets: %v", err)
	}
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("/usr/bin/lets mode %v, want 0755", fi.Mode().Perm())
	}
	if fi, err := os.Stat(filepath.Join(root, "usr", "bin", "lets-core")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("the package has no 0755 /usr/bin/lets-core beside lets: %v", err)
	}
	// The installed programs are stripped (#21): no symbol table, and
	// smaller than the programs built with one.
	for _, prog := range []string{"lets", "lets-core"} {
		built, err := os.Stat(filepath.Join(work, prog))
		if err != nil {
			t.Fatal(err)
		}
		installed := filepath.Join(root, "usr", "bin", prog)
		f, err := elf.Open(installed)
		if err != nil {
			t.Fatalf("/usr/bin/%s is not an ELF program: %v", prog, err)
		}
		symtab, debug := f.Section(".symtab"), f.Section(".debug_info")
		f.Close()
		if symtab != nil || debug != nil {
			t.Errorf("/usr/bin/%s is not stripped (it has .symtab or .debug_info)", prog)
		}
		fi, err := os.Stat(installed)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() >= built.Size() {
			t.Errorf("/usr/bin/%s is %d bytes, not smaller than the %d built", prog, fi.Size(), built.Size())
		}
		t.Logf("%s: %.1f MB built, %.1f MB stripped in the package", prog, float64(built.Size())/1e6, float64(fi.Size())/1e6)
	}
	if v := run(t, nil, lets, "version"); !strings.Contains(v, "9.8.7") {
		t.Errorf("the installed lets says %q, want version 9.8.7", v)
	}

	desktop := filepath.Join(root, "usr", "share", "applications", "lets.desktop")
	entry, err := os.ReadFile(desktop)
	if err != nil {
		t.Fatalf("the package has no desktop entry: %v", err)
	}
	keys := map[string]string{}
	for _, line := range strings.Split(string(entry), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			keys[k] = v
		}
	}
	if exe := strings.Fields(keys["Exec"]); len(exe) == 0 || exe[0] != "lets" {
		t.Errorf("Exec=%q should start the lets on PATH (/usr/bin)", keys["Exec"])
	}
	if keys["Icon"] != "lets" {
		t.Errorf("Icon=%q, want the theme name lets", keys["Icon"])
	}
	// Not even a warning or a hint (#21).
	if out := run(t, nil, validate, desktop); strings.TrimSpace(out) != "" {
		t.Errorf("desktop-file-validate %s says:\n%s", desktop, out)
	}

	icons := filepath.Join(root, "usr", "share", "icons", "hicolor")
	for _, n := range iconart.Sizes {
		path := filepath.Join(icons, fmt.Sprintf("%dx%d", n, n), "apps", "lets.png")
		f, err := os.Open(path)
		if err != nil {
			t.Errorf("no %d px icon where the theme looks: %v", n, err)
			continue
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != n || cfg.Height != n {
			t.Errorf("%s: %dx%d, %v; want a %d px PNG", path, cfg.Width, cfg.Height, err, n)
		}
	}
	if svg, err := os.ReadFile(filepath.Join(icons, "scalable", "apps", "lets.svg")); err != nil || !bytes.Equal(svg, iconart.SVG()) {
		t.Errorf("scalable icon missing or not the generated one: %v", err)
	}
}

// Point: a package the recipe cannot make fails with a message that says
// what to do, and leaves no .deb behind.
func TestPackageRefusesAMissingBinary(t *testing.T) {
	testutil.Command(t, "dpkg-deb")
	out := filepath.Join(t.TempDir(), "lets.deb")
	cmd := exec.Command("sh", filepath.Join("linux", "package.sh"), filepath.Join(t.TempDir(), "nothing"), "1.0", out)
	msg, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "make build") {
		t.Fatalf("err %v, output %q: want a failure that says to run make build", err, msg)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a failed run left a package behind")
	}
}
