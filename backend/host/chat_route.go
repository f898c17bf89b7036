package host

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lets-app/lets/backend/conversations"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/lip"
)

// "Chat with Claude": the app runs the conversations (backend/chatdriver)
// and gives the host Chats, so a second `lets chat` (POST /app/chat, host
// token) and the home page (POST /home/api/chat, DELETE
// /home/api/chat/{id}, the list in the overview) can reach them.

// ChatRoute is how a second process (`lets chat`) asks the running Lets to
// open a conversation in a chat window. It needs the host token.
const ChatRoute = "POST " + hostapi.PathChat

// Chats are the app's conversations with Claude. Open shows one in a chat
// window and returns the window id ("" starts a new conversation); its
// errors are conversations.ErrNotFound, *conversations.BadIDError or any
// other (said to the person as it is). Delete stops and removes one.
type Chats interface {
	List() []hostapi.ChatInfo
	Open(ctx context.Context, id string) (hostapi.ChatOpened, error)
	// OpenNew starts a new conversation working in folder (absolute; ""
	// is the default folder).
	OpenNew(ctx context.Context, folder string) (hostapi.ChatOpened, error)
	Delete(id string) error
}

// chatOpenTimeout bounds one Open: it may check Claude Code's sign-in and
// start the agent.
const chatOpenTimeout = 60 * time.Second

const chatUnavailable = "Chat with Claude is not available in this Lets (it runs without its chat part); start Lets with `lets` or `lets serve` from this version"

// registerChat adds the routes of the home page's chat card; the host
// token route is in privilegedRoutes.
func (s *Server) registerChat(mux *http.ServeMux) {
	mux.Handle("POST "+hostapi.PathHomeChat, s.requireHomeToken(s.handleHomeChatOpen))
	mux.Handle("DELETE "+hostapi.HomeChatPath("{id}"), s.requireHomeToken(s.handleChatDelete))
	mux.Handle(FoldersRoute, s.requireHomeToken(s.handleFolders))
	s.registerTrust(mux)
}

// handleChatOpen is POST /app/chat (host token: `lets chat`, a person at a
// terminal): any folder.
func (s *Server) handleChatOpen(w http.ResponseWriter, r *http.Request) { s.chatOpen(w, r, false) }

// handleHomeChatOpen is POST /home/api/chat: only a folder the home page's
// chooser can offer.
func (s *Server) handleHomeChatOpen(w http.ResponseWriter, r *http.Request) { s.chatOpen(w, r, true) }

// chooserFolder is folder as the chat's working folder when the home page
// asks: an existing folder inside the person's home folder, links
// resolved (a link that leads out of home is refused), as FoldersRoute
// offers them. It returns the resolved path.
func chooserFolder(home, folder string) (string, error) {
	realHome, err := filepath.EvalSymlinks(home)
	if err != nil || home == "" {
		return "", errFolderMissing
	}
	if !filepath.IsAbs(folder) || len(folder) > 4096 || strings.ContainsRune(folder, 0) {
		return "", errFolderPath
	}
	real, err := filepath.EvalSymlinks(filepath.Clean(folder))
	if err != nil {
		return "", errFolderMissing
	}
	if !inside(realHome, real) {
		return "", errFolderOutside
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", errNotAFolder
	}
	return real, nil
}

func (s *Server) chatOpen(w http.ResponseWriter, r *http.Request, fromHome bool) {
	if s.opts.Chats == nil {
		writeError(w, http.StatusNotImplemented, "no_chat", chatUnavailable)
		return
	}
	b, ok := readBody(w, r, 4<<10)
	if !ok {
		return
	}
	var req hostapi.ChatRequest
	if len(b) > 0 {
		if err := json.Unmarshal(b, &req); err != nil {
			writeError(w, http.StatusBadRequest, string(lip.CodeBadEnvelope), `the body must be {"conversation": "<id>"} or empty for a new conversation: `+err.Error())
			return
		}
	}
	if req.Conversation != "" && !conversations.ValidID(req.Conversation) {
		writeError(w, http.StatusBadRequest, string(hostapi.CodeBadConversation), (&conversations.BadIDError{ID: req.Conversation}).Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), chatOpenTimeout)
	defer cancel()
	if req.Folder != "" && (req.Conversation != "" || !filepath.IsAbs(req.Folder) || len(req.Folder) > 4096) {
		writeError(w, http.StatusBadRequest, "bad_folder", `"folder" is the working folder of a new conversation: a full path (starting with /), and only without "conversation"`)
		return
	}
	if fromHome && req.Folder != "" {
		real, err := chooserFolder(s.opts.Getenv("HOME"), req.Folder)
		if err != nil {
			writeError(w, http.StatusBadRequest, "bad_folder", err.Error())
			return
		}
		req.Folder = real
	}
	var opened hostapi.ChatOpened
	var err error
	if req.Conversation == "" {
		opened, err = s.opts.Chats.OpenNew(ctx, req.Folder)
	} else {
		opened, err = s.opts.Chats.Open(ctx, req.Conversation)
	}
	if err != nil {
		s.writeChatError(w, err)
		return
	}
	// The chat opened its window through the host API, so a window no
	// native window took waits for the person; only the person's own home
	// page gets its one-time URL back (issue #23).
	opened.URL, opened.Shown, opened.Home = "", ShownWindow, ""
	if s.core != nil && opened.Window != "" {
		if u, waiting := s.core.waitingURL(opened.Window, s.URL()); waiting {
			opened.Shown, opened.Home = ShownWaiting, s.URL()+"/"
			if fromHome && s.isPerson(r) {
				opened.URL = u
			}
		}
	}
	writeJSON(w, http.StatusOK, opened)
}

func (s *Server) handleChatDelete(w http.ResponseWriter, r *http.Request) {
	if s.opts.Chats == nil {
		writeError(w, http.StatusNotImplemented, "no_chat", chatUnavailable)
		return
	}
	id := r.PathValue("id")
	if !conversations.ValidID(id) {
		writeError(w, http.StatusBadRequest, string(hostapi.CodeBadConversation), (&conversations.BadIDError{ID: id}).Error())
		return
	}
	if err := s.opts.Chats.Delete(id); err != nil {
		s.writeChatError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"deleted": id})
}

func (s *Server) writeChatError(w http.ResponseWriter, err error) {
	var bad *conversations.BadIDError
	switch {
	case errors.Is(err, conversations.ErrNotFound):
		writeError(w, http.StatusNotFound, string(hostapi.CodeUnknownConversation), "there is no such conversation (it may have been deleted); see the list in Home or `lets chat --list`")
	case errors.As(err, &bad):
		writeError(w, http.StatusBadRequest, string(hostapi.CodeBadConversation), bad.Error())
	default:
		s.opts.Log.Warn("chat: the request failed", "err", err)
		writeError(w, http.StatusInternalServerError, string(hostapi.CodeChatFailed), "the chat could not open: "+err.Error())
	}
}

// homeChat is the chat card of the home overview.
type homeChat struct {
	// Available is false when this Lets runs without its chat part.
	Available bool               `json:"available"`
	List      []hostapi.ChatInfo `json:"list"`
}

// maxHomeChats bounds the conversations listed on the home page.
const maxHomeChats = 50

func (s *Server) homeChats() homeChat {
	c := homeChat{List: []hostapi.ChatInfo{}}
	if s.opts.Chats == nil {
		return c
	}
	c.Available = true
	for _, i := range s.opts.Chats.List() {
		// Each "Start a new chat" makes a conversation; one closed before
		// anything was said holds nothing to continue, and a pile of
		// "New conversation · 0 messages" would bury the real ones (#26).
		if i.Turns == 0 && i.Window == "" {
			continue
		}
		c.List = append(c.List, i)
	}
	if len(c.List) > maxHomeChats {
		c.List = c.List[:maxHomeChats]
	}
	return c
}
