package app

import (
	"context"
	"errors"
)

// runSetup is `lets setup claude`. Being written (issue #13).
func runSetup(ctx context.Context, env *Env, args []string) error {
	return errors.New("lets setup claude is not finished yet")
}
