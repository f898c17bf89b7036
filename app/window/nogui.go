//go:build !(desktop && production && webkit2_41)

package window

import "context"

// Supported says whether this binary has native windows.
const Supported = false

func run(ctx context.Context, c *controller) error { return ErrNoGUI }
