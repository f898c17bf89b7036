package desktopopen

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/lets-app/lets/backend/testenv/axe"
)

// TestPageAccessibleInPlainWords (issue #26): the page that hands the
// browser its address, in the moment it shows (here its target answers
// 204 No Content, so the browser stays on it), passes axe-core in light,
// dark and at 200 %, has one heading in a main region, reflows at 320 px
// and speaks plainly.
func TestPageAccessibleInPlainWords(t *testing.T) {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.HandleFunc("/stay", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/open", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page(srv.URL + "/stay")))
	})
	axe.PersonPage(t, "desktop-open", srv.URL+"/open", axe.PageOptions{})
}
