package app

import (
	"context"
	"errors"
)

// runHook is `lets hook <event>`. Being written (issue #13).
func runHook(ctx context.Context, env *Env, args []string) error {
	return errors.New("lets hook is not finished yet")
}
