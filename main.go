// Command lets is the Lets desktop app and its command-line tools.
package main

import (
	"os"

	"github.com/lets-app/lets/app"
)

func main() {
	os.Exit(app.Main(os.Args))
}
