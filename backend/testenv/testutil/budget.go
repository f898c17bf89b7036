package testutil

import (
	"fmt"
	"io"
	"os"
	"testing"
)

// TimeBudgetsEnv, set to "1" by `make bench` (run on a quiet machine),
// makes a benchmark whose measured time is over its budget fail. Without
// it — `make test` runs every benchmark once, on a machine that may be
// loaded — an overrun is reported loudly and the benchmark passes: a time
// measured on a busy machine says how busy the machine was, not whether
// the product is correct.
const TimeBudgetsEnv = "LETS_BENCH_BUDGETS"

// TimeBudget checks a time a benchmark measured against its budget: over
// says the measurement exceeded it, and format/args word the overrun.
func TimeBudget(tb testing.TB, over bool, format string, args ...any) {
	tb.Helper()
	timeBudget(tb, os.Getenv, os.Stderr, over, format, args...)
}

func timeBudget(tb testing.TB, getenv func(string) string, loud io.Writer, over bool, format string, args ...any) {
	tb.Helper()
	if !over {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if getenv(TimeBudgetsEnv) == "1" {
		tb.Errorf("%s", msg)
		return
	}
	fmt.Fprintf(loud, "!!! OVER BUDGET in %s: %s (not failed: only `make bench`, with %s=1, holds timing budgets)\n", tb.Name(), msg, TimeBudgetsEnv)
	tb.Logf("OVER BUDGET: %s (set %s=1 to make this a failure)", msg, TimeBudgetsEnv)
}
