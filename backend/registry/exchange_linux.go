package registry

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchangeDirs swaps two folders in one step (renameat2 RENAME_EXCHANGE),
// so the target is never missing while an update replaces it. Filesystems
// without the flag fall back to two renames.
func exchangeDirs(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return swapByRenames(a, b)
	}
	return err
}
