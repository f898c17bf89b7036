package registry

import (
	"fmt"
	"os"
	"path/filepath"
)

// swapByRenames swaps folders a and b with two renames through a third
// name next to b; b is missing only between the two renames.
func swapByRenames(a, b string) error {
	aside := filepath.Join(filepath.Dir(b), removedPrefix+"swap-"+filepath.Base(b))
	if err := os.Rename(b, aside); err != nil {
		return err
	}
	if err := os.Rename(a, b); err != nil {
		if rerr := os.Rename(aside, b); rerr != nil {
			return fmt.Errorf("%w (and putting the old folder back failed: %v)", err, rerr)
		}
		return err
	}
	return os.Rename(aside, a)
}
