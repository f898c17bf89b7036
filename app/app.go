// Package app is the entry of the lets program: main.go calls Main, which
// runs the command line (package app/cli).
package app

import "github.com/lets-app/lets/app/cli"

// Main runs the CLI with os.Args and returns the process exit code.
func Main(args []string) int { return cli.Main(args) }
