//go:build !linux

package daemon_test

// waitConsumed would wait until the daemon has read every byte c sent;
// only Linux tells (SIOCOUTQ), so elsewhere the next bytes may arrive in
// the same read and a split-frame test checks a little less.
func (c *client) waitConsumed() {}
