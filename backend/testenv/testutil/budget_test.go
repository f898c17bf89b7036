package testutil

import (
	"strings"
	"testing"
)

func TestTimeBudgetFailsOnlyWhereBudgetsAreHeld(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == TimeBudgetsEnv {
				return v
			}
			return ""
		}
	}
	var loud strings.Builder
	r := runTB(t, func(tb testing.TB) { timeBudget(tb, env("1"), &loud, true, "took %d ms", 20) })
	if !r.errored || !strings.Contains(r.errorText, "took 20 ms") {
		t.Fatalf("under %s=1 an overrun must fail the benchmark: %+v", TimeBudgetsEnv, r)
	}
	loud.Reset()
	r = runTB(t, func(tb testing.TB) { timeBudget(tb, env(""), &loud, true, "took %d ms", 20) })
	if r.errored || r.failed != "" || !strings.Contains(loud.String(), "OVER BUDGET") || !strings.Contains(r.logged, "took 20 ms") {
		t.Fatalf("without %s an overrun is reported loudly, not failed: %+v, loud %q", TimeBudgetsEnv, r, loud.String())
	}
	loud.Reset()
	r = runTB(t, func(tb testing.TB) { timeBudget(tb, env("1"), &loud, false, "took %d ms", 2) })
	if r.errored || r.logged != "" || loud.Len() != 0 {
		t.Fatalf("within budget nothing is said: %+v", r)
	}
}
