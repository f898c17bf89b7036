// Command lets is the program people and Claude Code run: it answers
// `lets hook` itself and hands every other command to lets-core beside it
// (package app/front says why).
package main

import (
	"os"

	"github.com/lets-app/lets/app/front"
)

func main() {
	os.Exit(front.Main(os.Args))
}
