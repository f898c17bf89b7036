module github.com/lets-app/lets

go 1.26.0

require (
	github.com/chromedp/cdproto v0.0.0-20260321001828-e3e3800016bc
	github.com/chromedp/chromedp v0.15.1
	github.com/evanw/esbuild v0.28.2
	github.com/gofrs/flock v0.13.2
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	gitlab.com/gomidi/midi/v2 v2.3.24
	golang.org/x/sys v0.49.0
)

require (
	github.com/chromedp/sysutil v1.1.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260214004413-d219187c3433 // indirect
	github.com/gobwas/httphead v0.1.0 // indirect
	github.com/gobwas/pool v0.2.1 // indirect
	github.com/gobwas/ws v1.4.0 // indirect
	github.com/gorilla/websocket v1.5.3 // indirect
	github.com/oklog/ulid/v2 v2.1.2 // indirect
	golang.org/x/text v0.14.0 // indirect
)
