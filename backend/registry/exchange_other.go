//go:build !linux

package registry

// exchangeDirs swaps two folders; without renameat2 it takes two renames.
func exchangeDirs(a, b string) error { return swapByRenames(a, b) }
