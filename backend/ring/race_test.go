//go:build race

package ring

const raceFactor = 5
