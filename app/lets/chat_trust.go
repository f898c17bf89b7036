package lets

import (
	"github.com/lets-app/lets/backend/chatdriver"
	"github.com/lets-app/lets/backend/trust"
)

// chatTrust is which folders' own Claude settings the chat's Claude may
// load: those the person trusted in a chat window (the list in the data
// folder, which the home window shows and revokes); never the default
// folder's.
func chatTrust(env *Env, st *Setup) *chatdriver.FolderTrust {
	def, err := chatWorkDir(env)
	if err != nil {
		def = ""
	}
	return &chatdriver.FolderTrust{
		Store:      trust.New(trust.Options{File: trust.File(st.Paths), Logger: st.Log.With("part", "trust")}),
		DefaultDir: def,
	}
}
