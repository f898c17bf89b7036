package host

import (
	"io/fs"
	"net/http"
	"os"
)

// pageCSP keeps the app's own pages to their own files. Images may also
// be blob: URLs the page made itself: the home page fetches the uniques'
// icons with its token in a header and shows them from object URLs, so
// the token never goes in an address (issue #23).
const pageCSP = "default-src 'self'; img-src 'self' blob:; base-uri 'self'; form-action 'self'; frame-ancestors 'none'; object-src 'none'"

// pagesHandler serves the embedded frontend. The FS is embedded in the
// binary, so there are no symlinks or outside paths to defend against here;
// http.FS still rejects ".." in paths.
func pagesHandler(pages fs.FS) http.Handler {
	files := http.FileServer(http.FS(pages))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", pageCSP)
		w.Header().Set("X-Frame-Options", "DENY")
		files.ServeHTTP(w, r)
	})
}

func pid() int { return os.Getpid() }
