module github.com/lets-app/lets

go 1.26.0

require (
	github.com/evanw/esbuild v0.28.2 // indirect
	github.com/gofrs/flock v0.13.2 // indirect
	github.com/gorilla/websocket v1.5.3 // indirect
	github.com/oklog/ulid/v2 v2.1.2 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)
