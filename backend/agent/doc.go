// Package agent runs Claude Code (`claude -p` in stream-json mode) as the
// agent behind a Lets chat: one supervised process per conversation, with
// typed events (protocol.go, pure), the process adapter (process.go:
// back-pressure, restart with --resume after a crash, interrupt, clean
// stop) and sign-in checks (auth.go: claude auth status / login, Find).
package agent
