package testutil

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func readRepoFile(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// recipe returns the command lines of one Makefile target.
func recipe(t *testing.T, makefile, target string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(target) + `:[^\n]*\n((?:\t[^\n]*\n)*)`).FindStringSubmatch(makefile)
	if m == nil {
		t.Fatalf("the Makefile has no %s target", target)
	}
	return m[1]
}

// Point: CI cannot pass by skipping. .ci/run exports both variables
// unconditionally before make test, and every test step of make test sets
// them too, so a test that cannot run fails with its reason.
func TestCIAndMakeTestRequireToolsAndSharedData(t *testing.T) {
	ci := readRepoFile(t, ".ci/run")
	for _, v := range []string{RequireToolsEnv, RequireSharedEnv} {
		line := "export " + v + "=1"
		i, j := strings.Index(ci, line), strings.Index(ci, "exec make test")
		if i < 0 || j < 0 || i > j {
			t.Errorf(".ci/run must say %q before it runs make test:\n%s", line, ci)
		}
	}
	mk := readRepoFile(t, "Makefile")
	env := regexp.MustCompile(`(?m)^TEST_ENV := (.*)$`).FindStringSubmatch(mk)
	if env == nil || !strings.Contains(env[1], RequireToolsEnv+"=1") || !strings.Contains(env[1], RequireSharedEnv+"=1") {
		t.Fatalf("the Makefile's TEST_ENV must set %s=1 and %s=1, got %v", RequireToolsEnv, RequireSharedEnv, env)
	}
	if strings.Contains(mk, "ifneq ($(wildcard ../shared") {
		t.Error("the Makefile must not make LETS_REQUIRE_SHARED depend on ../shared being there")
	}
	for _, target := range []string{"unit", "race", "bench-once", "fuzz"} {
		if !strings.Contains(recipe(t, mk, target), "$(TEST_ENV) $(GO) test") {
			t.Errorf("make %s must run go test under $(TEST_ENV)", target)
		}
	}
}

// Point: make test runs, in this order: the test set-up, the bundle check,
// lint, the TypeScript type-check, the tests, the race detector on the
// concurrent packages, every benchmark once, and the fuzz targets.
func TestMakeTestRunsEveryStepInOrder(t *testing.T) {
	mk := readRepoFile(t, "Makefile")
	m := regexp.MustCompile(`(?m)^test: (.*)$`).FindStringSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile has no test target")
	}
	want := "deps-test generate-check lint tsc unit race bench-once fuzz"
	if got := strings.Join(strings.Fields(m[1]), " "); got != want {
		t.Fatalf("make test runs %q, want %q", got, want)
	}
	if r := recipe(t, mk, "race"); !strings.Contains(r, "-race") || !strings.Contains(r, "$(RACE_PACKAGES)") {
		t.Errorf("make race must run go test -race on $(RACE_PACKAGES): %q", r)
	}
	race := racePatterns(t, mk)
	for _, pkg := range []string{"daemon", "host", "ring", "surface/web", "surface/midi", "service", "control", "wireclient", "agent", "chatdriver", "conversations", "audio", "config", "identitystore"} {
		if !raceCovers(race, "backend/"+pkg) {
			t.Errorf("RACE_PACKAGES should include ./backend/%s/...", pkg)
		}
	}
	if strings.Contains(recipe(t, mk, "race"), "-skip") {
		t.Errorf("make race must not skip tests: browser tests run under -race too, their timing checks are benchmarks")
	}
	if r := recipe(t, mk, "bench-once"); !strings.Contains(r, "-bench . -benchtime 1x") || !strings.Contains(r, "-run '^$$'") || !strings.Contains(r, "./...") {
		t.Errorf("make bench-once must run every benchmark once: %q", r)
	}
	if r := recipe(t, mk, "tsc"); !strings.Contains(r, "--noEmit") {
		t.Errorf("make tsc must run tsc --noEmit: %q", r)
	}
	for _, cfg := range []string{"shell/tsconfig.json", "frontend/tsconfig.json"} {
		if !strings.Contains(mk, cfg) {
			t.Errorf("make tsc should check %s", cfg)
		}
		if !strings.Contains(readRepoFile(t, cfg), `"strict": true`) {
			t.Errorf("%s must be strict", cfg)
		}
	}
}
