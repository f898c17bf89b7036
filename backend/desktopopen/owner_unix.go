//go:build unix

package desktopopen

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ownedByMe checks that fi belongs to the user running Lets.
func ownedByMe(fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("cannot tell who owns it")
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("it belongs to uid %d, not to you (uid %d)", st.Uid, os.Getuid())
	}
	return nil
}
